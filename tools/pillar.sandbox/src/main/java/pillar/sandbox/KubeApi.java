package pillar.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

/**
 * An EMULATED Kubernetes API: fabric8's mock API server in CRUD mode on 127.0.0.1, serving the
 * chart's CRDs (and the external-snapshotter's VolumeSnapshotClass), with a kubeconfig written for it. It stores and watches objects like an API server
 * (status subresource, resourceVersion conflicts), but runs no admission, no schema validation and
 * no controllers of its own. It runs in the sandbox's own JVM (one JVM fewer to start under
 * emulation) until closed.
 */
final class KubeApi implements AutoCloseable {
    /** Under emulation a request may take many seconds: generous timeouts, no retry that would re-POST. */
    private static final int REQUEST_TIMEOUT_MS = 120_000;

    /**
     * The external-snapshotter's VolumeSnapshotClass, served as on a cluster with snapshots set up
     * (its CRDs are a cluster add-on, not the chart's): the controller then generates its classes.
     */
    static final CustomResourceDefinitionContext SNAPSHOT_CLASSES = new CustomResourceDefinitionContext.Builder()
            .withName("volumesnapshotclasses.snapshot.storage.k8s.io").withGroup("snapshot.storage.k8s.io")
            .withVersion("v1").withKind("VolumeSnapshotClass").withPlural("volumesnapshotclasses").withScope("Cluster")
            .build();

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final Path kubeconfig;
    private final int port;
    private final List<String> crds;

    private KubeApi(KubernetesMockServer server, KubernetesClient client, Path kubeconfig, int port, List<String> crds) {
        this.crds = crds;
        this.server = server;
        this.client = client;
        this.kubeconfig = kubeconfig;
        this.port = port;
    }

    /**
     * Starts the emulator on {@code port} serving the CRDs found in {@code crds}, writes
     * {@code kubeconfig}. The CRDs are registered with the emulator directly: posting them (tens of
     * kilobytes of schema each) took minutes under emulation.
     */
    static KubeApi start(int port, Path kubeconfig, Path crds) {
        List<CustomResourceDefinitionContext> contexts = new ArrayList<>();
        List<String> names = new ArrayList<>();
        KubernetesSerialization serialization = new KubernetesSerialization();
        try {
            for (Path file : yamlFiles(crds)) {
                try (InputStream in = Files.newInputStream(file)) {
                    CustomResourceDefinition crd = serialization.unmarshal(in, CustomResourceDefinition.class);
                    contexts.add(CustomResourceDefinitionContext.fromCrd(crd));
                    names.add(crd.getMetadata().getName());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the CRDs in " + crds, e);
        }
        List<CustomResourceDefinitionContext> served = new ArrayList<>(contexts);
        served.add(SNAPSHOT_CLASSES);
        names.add(SNAPSHOT_CLASSES.getName());
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new CountingDispatcher(served), false);
        server.init(InetAddress.getLoopbackAddress(), port);
        KubernetesClient client = client("http://127.0.0.1:" + port);
        try {
            warmUp(client, contexts, new ArrayList<>());
            writeKubeconfig(kubeconfig, port);
        } catch (IOException | RuntimeException e) {
            client.close();
            server.destroy();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
        return new KubeApi(server, client, kubeconfig, port, List.copyOf(names));
    }

    /**
     * Makes each kind of request the controller makes once (create, list, status update, watch,
     * delete) before the controller starts: under emulation the first request of a kind costs the
     * emulator seconds of class loading, and the controller's client gives up after 10 s. The watches
     * stay open until the emulator stops: closing one blocks the emulator's event loop for seconds
     * (fabric8's WatchEventsListener.onClosed waits for its executor on that thread).
     */
    private static void warmUp(KubernetesClient client, List<CustomResourceDefinitionContext> contexts,
                               List<Watch> warmWatches) {
        for (CustomResourceDefinitionContext crd : contexts) {
            var resources = client.genericKubernetesResources(crd);
            GenericKubernetesResource object = new GenericKubernetesResourceBuilder()
                    .withApiVersion(crd.getGroup() + "/" + crd.getVersion()).withKind(crd.getKind())
                    .withNewMetadata().withName("sandbox-warm-up").endMetadata().build();
            GenericKubernetesResource created = resources.resource(object).create();
            created.setAdditionalProperty("status", Map.of("observedGeneration", 1));
            resources.resource(created).updateStatus();
            resources.list();
            warmWatches.add(resources.watch(IGNORE));
            resources.withName("sandbox-warm-up").delete();
        }
        client.storage().v1().storageClasses().list();
        warmWatches.add(client.storage().v1().storageClasses().watch(new Watcher<>() {
            @Override
            public void eventReceived(Action action, StorageClass resource) {
                // only the request matters
            }

            @Override
            public void onClose(WatcherException cause) {
                // the emulator is going away
            }
        }));
        client.v1().events().inNamespace("pillar-system").list();
    }

    /** Ignores events: the warm-up's watches exist for their requests only. */
    private static final Watcher<GenericKubernetesResource> IGNORE = new Watcher<>() {
        @Override
        public void eventReceived(Action action, GenericKubernetesResource resource) {
            // only the request matters
        }

        @Override
        public void onClose(WatcherException cause) {
            // the emulator is going away
        }
    };

    /** A client of the emulator with timeouts fit for emulation; the caller closes it. */
    static KubernetesClient client(String url) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url).withNamespace("pillar-system")
                .withRequestTimeout(REQUEST_TIMEOUT_MS).withConnectionTimeout(30_000).withRequestRetryBackoffLimit(0)
                .withHttp2Disable(true)
                .build();
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new JdkHttpClientFactory()).build();
    }

    KubernetesClient client() {
        return client;
    }

    Path kubeconfig() {
        return kubeconfig;
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    /** The names of the CRDs it serves. */
    List<String> crds() {
        return crds;
    }

    private static void writeKubeconfig(Path kubeconfig, int port) throws IOException {
        String config = """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: sandbox
                    cluster: {server: "http://127.0.0.1:%d"}
                users:
                  - name: sandbox
                    user: {token: sandbox}
                contexts:
                  - name: sandbox
                    context: {cluster: sandbox, user: sandbox, namespace: pillar-system}
                current-context: sandbox
                """.formatted(port);
        Files.createDirectories(kubeconfig.toAbsolutePath().getParent());
        Path temp = kubeconfig.resolveSibling(kubeconfig.getFileName() + ".tmp");
        Files.writeString(temp, config);
        Files.move(temp, kubeconfig, StandardCopyOption.ATOMIC_MOVE);
    }

    static List<Path> yamlFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".yml") || f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @Override
    public void close() {
        server.destroy(); // first: the client's closing watches would block a live emulator
        client.close();
    }
}
