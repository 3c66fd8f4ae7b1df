/**
 * pillar-controller, the cluster workload: reconciles the Pillar CRDs and serves CSI Identity and
 * Controller on the sidecars' socket; calls agents over gRPC. Runs with
 * {@code java -m pillar.controller/pillar.controller.ControllerMain}.
 *
 * <p>Exports nothing. The only module that talks to Kubernetes (fabric8).
 */
module pillar.controller {
    requires pillar.api;
    requires io.helidon.logging.common;
    requires java.logging;
}
