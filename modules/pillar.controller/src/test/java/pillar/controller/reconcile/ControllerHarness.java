package pillar.controller.reconcile;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import pillar.controller.agent.FakeAgentClient;
import pillar.controller.crd.Condition;
import pillar.controller.crd.Conditions;

/**
 * The reconcilers against the fabric8 mock API server in CRUD mode (the generated CRDs installed
 * in it) and a stateful fake agent, with short poll and backoff so that changes show quickly.
 * Waits use Awaitility; nothing asserts on time.
 */
public final class ControllerHarness implements AutoCloseable {
    /** Where events are recorded. */
    public static final String NAMESPACE = "pillar-system";
    /** The longest wait for a reconciler to act; a bound, never an expectation. */
    public static final Duration PATIENCE = Duration.ofSeconds(30);

    public final KubernetesClient client;
    public final FakeAgentClient agents = new FakeAgentClient();
    private final KubernetesMockServer server;
    private final PillarControllers controllers;

    private ControllerHarness(boolean agentTls) {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new StrictCrudDispatcher(),
                false);
        server.init();
        client = server.createClient(new JdkHttpClientFactory());
        installCrds(client);
        controllers = PillarControllers.start(client, agents, agentTls, NAMESPACE, new ReconcileSettings(
                Duration.ofMillis(200), new Backoff(Duration.ofMillis(50), Duration.ofMillis(400)), Duration.ofMinutes(10)),
                Clock.systemUTC());
        await().atMost(PATIENCE).until(controllers::ready);
    }

    /** A started harness whose controller has no agents.tls files. */
    public static ControllerHarness start() {
        return new ControllerHarness(false);
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

    public <T extends HasMetadata> T create(T object) {
        return client.resource(object).create();
    }

    public <T extends HasMetadata> Optional<T> get(Class<T> type, String name) {
        return Optional.ofNullable(client.resources(type).withName(name).get());
    }

    /** Changes an object's spec (or anything else) with a fresh read, as kubectl edit would. */
    /**
     * Reads, changes and writes the object, again from a fresh read when a reconciler wrote it in between
     * (409 Conflict), as kubectl edit would have the user do.
     */
    public <T extends HasMetadata> T edit(Class<T> type, String name, java.util.function.UnaryOperator<T> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                return client.resources(type).withName(name).edit(change);
            } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
                if (e.getCode() != java.net.HttpURLConnection.HTTP_CONFLICT || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    public <T extends HasMetadata> void delete(Class<T> type, String name) {
        client.resources(type).withName(name).delete();
    }

    /** Waits until the object's condition of that type has that status and reason; returns it. */
    public <T extends CustomResource<?, ?>> Condition awaitCondition(Class<T> type, String name, String conditionType,
                                                                      String status, String reason,
                                                                      Function<T, List<Condition>> conditions) {
        return await().atMost(PATIENCE).until(() -> get(type, name)
                        .filter(o -> o.getStatus() != null)
                        .flatMap(o -> Conditions.find(conditions.apply(o), conditionType)),
                c -> c.isPresent() && status.equals(c.get().getStatus()) && reason.equals(c.get().getReason()))
                .orElseThrow();
    }

    /** The events recorded about an object, oldest first. */
    public List<Event> events(String kind, String name) {
        return client.v1().events().inNamespace(NAMESPACE).list().getItems().stream()
                .filter(e -> kind.equals(e.getInvolvedObject().getKind()) && name.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    @Override
    public void close() {
        controllers.close();
        client.close();
        MockServers.destroy(server);
    }
}
