/**
 * pillar-controller, the cluster workload: reconciles the Pillar CRDs and serves CSI Identity and
 * Controller on the sidecars' socket (each volume recorded in a PillarVolumeState); calls agents over
 * gRPC; one replica acts at a time (leader election on a Lease). Runs with
 * {@code java -p MODULES --add-modules ALL-MODULE-PATH -m pillar.controller/pillar.controller.ControllerMain}
 * (fabric8's automatic modules declare no requires, so their own dependencies, slf4j, snakeyaml,
 * the models, resolve only that way); configuration keys in {@code pillar.controller.ControllerConfig}.
 *
 * <p>Exports nothing. The only module that talks to Kubernetes (fabric8, whose jars are automatic
 * modules named after their files, e.g. {@code kubernetes.client.api}).
 */
module pillar.controller {
    requires pillar.api;
    requires pillar.runtime;
    requires io.helidon.logging.common;
    requires java.logging;

    requires kubernetes.client.api;
    requires kubernetes.model.common;
    requires kubernetes.model.core;
    requires kubernetes.model.storageclass;
    // fabric8's implementation, loaded by name by KubernetesClientBuilder, and the JDK HTTP client
    // it is given explicitly (ControllerMain), which needs java.net.http in the module graph
    requires kubernetes.client;
    requires io.fabric8.kubernetes.client.jdkhttp;
    requires java.net.http;
    requires com.fasterxml.jackson.annotation;
    // Jackson binds the CRD types; required (though not called) so that it resolves as the named
    // module the opens below name: fabric8's automatic modules declare no requires of their own
    requires tools.jackson.databind;
    // schema annotations for the CRD generator: read at build time only
    requires static generator.annotations;

    // deviation: the CRD types are opened (not exported) to the JSON binding that reads and writes them
    opens pillar.controller.crd to tools.jackson.databind, kubernetes.client.api, kubernetes.model.common;
}
