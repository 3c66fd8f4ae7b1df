package pillar.controller.reconcile;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.RecordedRequest;

/**
 * fabric8's mock API server in strict CRUD mode ({@link StrictCrudDispatcher}) with the generated CRDs
 * installed, and a client of it. {@link #newClient} gives another connection (a controller's own);
 * its caller closes it. {@link #close} closes {@link #client} and stops the server.
 */
public final class MockApi implements AutoCloseable {
    public final KubernetesClient client;
    private final KubernetesMockServer server;

    private MockApi(boolean withCrds) {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new StrictCrudDispatcher(),
                false);
        server.init();
        client = newClient();
        if (withCrds) {
            installCrds(client);
        }
    }

    /** A running server, the CRDs installed. */
    public static MockApi start() {
        return new MockApi(true);
    }

    /** A running server without the CRDs, as a cluster is before the chart's install: the caller installs them. */
    public static MockApi bare() {
        return new MockApi(false);
    }

    /** The CRDs exactly as the build generated them for the chart. */
    public static void installCrds(KubernetesClient client) {
        Path dir = Path.of(System.getProperty("pillar.crds.generated", "target/crds"));
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    CustomResourceDefinition crd = client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class);
                    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the generated CRDs are missing from " + dir + " (run the build's process-classes)", e);
        }
    }

    /** The requests the server received since the last call, each as "METHOD path", oldest first. */
    public List<String> takeRequests() {
        List<String> requests = new ArrayList<>();
        try {
            for (RecordedRequest r = server.takeRequest(0, TimeUnit.MILLISECONDS); r != null;
                 r = server.takeRequest(0, TimeUnit.MILLISECONDS)) {
                requests.add(r.getMethod() + " " + r.getPath());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the server's requests", e);
        }
        return requests;
    }

    public KubernetesClient newClient() {
        return server.createClient(new JdkHttpClientFactory());
    }

    @Override
    public void close() {
        client.close();
        MockServers.destroy(server);
    }
}
