package pillar.sandbox;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;

/**
 * {@code kube-api --port N --kubeconfig FILE --crds DIR}: an EMULATED Kubernetes API (fabric8's mock
 * API server in CRUD mode) on 127.0.0.1, with the chart's CRDs installed and a kubeconfig written
 * for it; runs until killed. It stores and watches objects like an API server, but runs no
 * admission, no schema validation and no controllers of its own.
 */
final class KubeApi {
    private KubeApi() {
    }

    static void run(int port, Path kubeconfig, Path crds) throws IOException, InterruptedException {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init(InetAddress.getLoopbackAddress(), port);
        try (KubernetesClient client = server.createClient(new JdkHttpClientFactory())) {
            for (Path file : yamlFiles(crds)) {
                try (InputStream in = Files.newInputStream(file)) {
                    CustomResourceDefinition crd = client.getKubernetesSerialization().unmarshal(in,
                            CustomResourceDefinition.class);
                    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                    System.out.println("  installed CRD " + crd.getMetadata().getName());
                }
            }
        }
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
        Path temp = kubeconfig.resolveSibling(kubeconfig.getFileName() + ".tmp");
        Files.writeString(temp, config);
        Files.move(temp, kubeconfig, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        System.out.println("  Kubernetes API EMULATOR (fabric8 mock server, CRUD mode) on http://127.0.0.1:" + port
                + "; kubeconfig " + kubeconfig);
        Thread.currentThread().join();
    }

    static List<Path> yamlFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".yml") || f.toString().endsWith(".yaml")).sorted().toList();
        }
    }
}
