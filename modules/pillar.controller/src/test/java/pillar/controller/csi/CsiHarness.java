package pillar.controller.csi;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import pillar.api.agent.v1.BackendKind;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.runtime.server.Channels;
import pillar.runtime.server.WorkloadConfig;
import pillar.controller.ControllerConfig;
import pillar.controller.ControllerMain;
import pillar.controller.ControllerWorkload;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.FakeAgent;
import pillar.controller.agent.FakeAgentClient;
import pillar.controller.agent.FaultInjectingAgentClient;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.MockApi;
import pillar.controller.reconcile.Pillars;

/**
 * The controller workload as its main starts it, against the fabric8 mock API server in CRUD mode
 * (the generated CRDs installed), called as the sidecars call it: over its real CSI UNIX socket with
 * a grpc-java client. Agents are behind a {@link FaultInjectingAgentClient}: the stateful fake by
 * default, or any other (the real agent over gRPC). Controllers can be started and stopped (a
 * crash, a second replica) on the same API server and agents.
 *
 * <p>A test declares it as a {@code @RegisterExtension} field built by one of the factories: it
 * {@linkplain #start starts} before each test (before the test's own {@code @BeforeEach}) with the
 * set-up its factory names, and closes after it. Outside JUnit, {@link #start} and {@link #close}
 * are the caller's. Sockets live in a temporary directory of its own, deleted on close.
 */
public final class CsiHarness implements BeforeEachCallback, AfterEachCallback, AutoCloseable {
    public static final String AGENT = "storage-1";
    public static final String STORE = "fast";
    public static final String PROTOCOL = "tcp";
    /** The fake agent's address (TEST-NET-1: never dialled for real). */
    public static final String FAKE_HOST = "192.0.2.10";
    public static final long GIB = 1L << 30;

    public final FaultInjectingAgentClient agents;
    private final FakeAgentClient fake;
    private final Consumer<CsiHarness> setUp;
    private final List<Controller> controllers = new ArrayList<>();
    private MockApi api;
    private Path dir;

    /**
     * One running controller, a client of its CSI socket, and its own Kubernetes client when it has
     * one (closing that one cuts the controller off the API server, as a network partition would).
     */
    public record Controller(ControllerWorkload workload, ManagedChannel channel, ControllerGrpc.ControllerBlockingStub csi,
                             Optional<KubernetesClient> ownClient) implements AutoCloseable {
        @Override
        public void close() {
            channel.shutdownNow();
            try {
                channel.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            workload.close();
            ownClient.ifPresent(KubernetesClient::close);
        }

        /** A stub with a fresh deadline. */
        public ControllerGrpc.ControllerBlockingStub stub() {
            return csi.withDeadlineAfter(60, TimeUnit.SECONDS);
        }
    }

    private CsiHarness(AgentClient agentClient, FakeAgentClient fake, Consumer<CsiHarness> setUp) {
        this.fake = fake;
        this.agents = new FaultInjectingAgentClient(agentClient);
        this.setUp = setUp;
    }

    /**
     * A stateful fake agent at {@value #FAKE_HOST}:9500 with an LVM thin backend of 100 GiB, its
     * PillarAgent, PillarStore {@value #STORE} and PillarProtocol {@value #PROTOCOL}, and one
     * controller started with those flags, ready once the store's pool is discovered.
     */
    public static CsiHarness withFakeAgent(String... controllerFlags) {
        return fakeAgent(harness -> {
            harness.startController("controller-a", controllerFlags);
            harness.awaitStoreReady();
        });
    }

    /** As {@link #withFakeAgent} but without a controller: the test starts its own. */
    public static CsiHarness fakeAgentOnly() {
        return fakeAgent(harness -> {
        });
    }

    private static CsiHarness fakeAgent(Consumer<CsiHarness> then) {
        FakeAgentClient fake = new FakeAgentClient();
        fake.agent(FAKE_HOST, 9500).backend("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0")
                .capacity("fast", 100 * GIB, 100 * GIB);
        return new CsiHarness(fake, fake, harness -> {
            harness.pillarObjects(FAKE_HOST, 9500, "vg0", "pool0");
            then.accept(harness);
        });
    }

    /** Another agent (the real one): the caller creates the Pillar objects and starts a controller. */
    public static CsiHarness with(AgentClient agent) {
        return new CsiHarness(agent, null, harness -> {
        });
    }

    /** Starts the API server and runs the factory's set-up; returns this harness. */
    public CsiHarness start() {
        if (api != null) {
            throw new IllegalStateException("the harness is already started");
        }
        try {
            dir = Files.createTempDirectory("pillar-csi-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        api = MockApi.start();
        setUp.accept(this);
        return this;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    /** The test's client of the API server; only while started. */
    public KubernetesClient client() {
        return running().client;
    }

    /** The requests the API server received since the last call, each as "METHOD path" ({@link MockApi#takeRequests}). */
    public List<String> apiRequests() {
        return running().takeRequests();
    }

    private MockApi running() {
        if (api == null) {
            throw new IllegalStateException("the harness is not started (declare it with @RegisterExtension, or call start)");
        }
        return api;
    }

    /** The PillarAgent at that address, an LVM thin store on it and a protocol binding that address. */
    public void pillarObjects(String host, int port, String volumeGroup, String thinPool) {
        client().resource(Pillars.agentAt(AGENT, host, port)).create();
        client().resource(Pillars.lvmStore(STORE, AGENT, "fast", volumeGroup, thinPool)).create();
        client().resource(Pillars.protocol(PROTOCOL, host)).create();
    }

    /**
     * Starts a controller (short poll and backoff) with its socket in the test's directory; leader
     * election is off unless the flags turn it on.
     */
    public Controller startController(String name, String... flags) {
        return startController(name, false, flags);
    }

    /** As above; with {@code ownClient} the controller talks to the API server through a client of its own. */
    public Controller startController(String name, boolean ownClient, String... flags) {
        List<String> args = new ArrayList<>(List.of("--csi.socket=" + dir.resolve(name + ".sock"), "--health.host=127.0.0.1",
                "--health.port=0", "--controller.namespace=" + ControllerHarness.NAMESPACE, "--controller.poll-interval=300ms",
                "--controller.backoff-initial=50ms", "--controller.backoff-max=500ms"));
        args.addAll(List.of(flags));
        if (args.stream().noneMatch(a -> a.startsWith("--controller.leader-election.enabled="))) {
            // one replica at a time unless a test elects: calls never wait for a Lease
            args.add("--controller.leader-election.enabled=false");
        }
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load(args.toArray(String[]::new)));
        Optional<KubernetesClient> own = ownClient ? Optional.of(running().newClient()) : Optional.empty();
        ControllerWorkload workload = ControllerMain.start(config, own.orElse(client()), agents);
        ManagedChannel channel = Channels.unix(config.endpoint().socket());
        Controller controller = new Controller(workload, channel,
                ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS), own);
        controllers.add(controller);
        return controller;
    }

    /** The first controller started (and not stopped). */
    public ControllerGrpc.ControllerBlockingStub csi() {
        return controllers.getFirst().csi().withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    /** Stops a controller as SIGTERM would (it gives up its Lease): nothing of it survives but what it wrote. */
    public void stop(Controller controller) {
        controllers.remove(controller);
        controller.close();
    }

    /** Stops every controller, as {@code helm uninstall} does; the API server and the agents stay. */
    public void stopControllers() {
        List.copyOf(controllers).forEach(this::stop);
    }

    /** Stops every controller and starts a fresh one (a restart after a crash). */
    public Controller restart() {
        stopControllers();
        return startController("controller-" + System.nanoTime());
    }

    public void awaitStoreReady() {
        await().atMost(ControllerHarness.PATIENCE).until(() -> Optional.ofNullable(client().resources(PillarStore.class)
                .withName(STORE).get()).filter(s -> s.getStatus() != null)
                .map(s -> Conditions.isTrue(s.getStatus().getConditions(), PillarStore.POOL_DISCOVERED)).orElse(false));
    }

    /** The fake agent (only with {@link #withFakeAgent}). */
    public FakeAgent fakeAgent() {
        return fake.agent(FAKE_HOST, 9500);
    }

    public FakeAgentClient fakeAgents() {
        return fake;
    }

    public Optional<PillarVolumeState> state(String volumeId) {
        return Optional.ofNullable(client().resources(PillarVolumeState.class).withName(volumeId).get());
    }

    /** The events recorded about the PillarVolumeState of that name, oldest first. */
    public List<io.fabric8.kubernetes.api.model.Event> events(String volumeId) {
        return client().v1().events().inNamespace(ControllerHarness.NAMESPACE).list().getItems().stream()
                .filter(e -> "PillarVolumeState".equals(e.getInvolvedObject().getKind())
                        && volumeId.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    public List<PillarVolumeState> states() {
        return client().resources(PillarVolumeState.class).list().getItems();
    }

    /** Stops every controller and the API server and deletes the socket directory; what did not start is skipped. */
    @Override
    public void close() {
        List.copyOf(controllers).forEach(this::stop);
        if (api != null) {
            api.close();
            api = null;
        }
        if (dir != null) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
                Files.delete(dir);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            dir = null;
        }
    }
}
