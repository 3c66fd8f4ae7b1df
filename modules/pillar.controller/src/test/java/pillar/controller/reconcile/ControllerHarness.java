package pillar.controller.reconcile;

import static org.awaitility.Awaitility.await;

import java.net.HttpURLConnection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.controller.agent.FakeAgentClient;
import pillar.controller.crd.Condition;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.PillarAgent;
import pillar.controller.reconcile.loop.Backoff;
import pillar.controller.reconcile.loop.ReconcileMeters;

/**
 * The reconcilers against the fabric8 mock API server in CRUD mode (the generated CRDs installed
 * in it) and a stateful fake agent, with short poll and backoff so that changes show quickly.
 * Waits use Awaitility; nothing asserts on time. A test declares it as a {@code @RegisterExtension}
 * field: it starts before each test (before the test's own {@code @BeforeEach}) and closes after it.
 */
public final class ControllerHarness implements BeforeEachCallback, AfterEachCallback, AutoCloseable {
    /** Where events are recorded. */
    public static final String NAMESPACE = "pillar-system";
    /** The longest wait for a reconciler to act; a bound, never an expectation. */
    public static final Duration PATIENCE = Duration.ofSeconds(30);

    /** The agents the reconcilers dial; set them up before or during the test. */
    public final FakeAgentClient agents = new FakeAgentClient();
    /** The reconcilers' meters ({@link ReconcileMeters}); scrape them to see what the reconcilers did. */
    public final WorkloadMetrics metrics = WorkloadMetrics.create("controller");
    private final ReconcileMeters meters = new ReconcileMeters(metrics);
    private MockApi api;
    private PillarControllers controllers;
    private final boolean agentTls;

    /** Reconcilers without agents.tls files: they dial the agents in plain text. */
    public ControllerHarness() {
        this(false);
    }

    /** @param agentTls whether the reconcilers have agents.tls files (mutual TLS possible, plaintext only by choice) */
    public ControllerHarness(boolean agentTls) {
        this.agentTls = agentTls;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        api = MockApi.start();
        controllers = PillarControllers.start(api.client, agents, agentTls, NAMESPACE, new ReconcileSettings(
                Duration.ofMillis(200), new Backoff(Duration.ofMillis(50), Duration.ofMillis(400)), Duration.ofMinutes(10)),
                Clock.systemUTC(), ExportAudit.NONE, meters);
        await().atMost(PATIENCE).until(controllers::ready);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    /** The client of the API server; only while a test runs. */
    public KubernetesClient client() {
        if (api == null) {
            throw new IllegalStateException("the harness runs only inside a test (declare it with @RegisterExtension)");
        }
        return api.client;
    }

    public <T extends HasMetadata> T create(T object) {
        return client().resource(object).create();
    }

    public <T extends HasMetadata> Optional<T> get(Class<T> type, String name) {
        return Optional.ofNullable(client().resources(type).withName(name).get());
    }

    /**
     * Reads, changes and writes the object, again from a fresh read when a reconciler wrote it in between
     * (409 Conflict), as kubectl edit would have the user do.
     */
    public <T extends HasMetadata> T edit(Class<T> type, String name, UnaryOperator<T> change) {
        for (int attempt = 1; ; attempt++) {
            try {
                return client().resources(type).withName(name).edit(change);
            } catch (KubernetesClientException e) {
                if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    public <T extends HasMetadata> void delete(Class<T> type, String name) {
        client().resources(type).withName(name).delete();
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

    /** Waits until PillarAgent {@code name}'s AgentConnected condition has that status and reason; returns it. */
    public Condition awaitAgentConnected(String name, String status, String reason) {
        return awaitCondition(PillarAgent.class, name, PillarAgent.AGENT_CONNECTED, status, reason, a -> a.getStatus().getConditions());
    }

    /** The events recorded about an object, oldest first. */
    public List<Event> events(String kind, String name) {
        return client().v1().events().inNamespace(NAMESPACE).list().getItems().stream()
                .filter(e -> kind.equals(e.getInvolvedObject().getKind()) && name.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    /** Stops the reconcilers and the API server; what did not start is skipped. */
    @Override
    public void close() {
        if (controllers != null) {
            controllers.close();
            controllers = null;
        }
        if (api != null) {
            api.close();
            api = null;
        }
    }
}
