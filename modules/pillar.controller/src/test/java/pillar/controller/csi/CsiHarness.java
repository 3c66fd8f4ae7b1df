package pillar.controller.csi;

import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import pillar.controller.reconcile.StrictCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.grpc.ManagedChannel;
import pillar.api.agent.v1.BackendKind;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.server.Channels;
import pillar.api.server.WorkloadConfig;
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
import pillar.controller.reconcile.MockServers;
import pillar.controller.reconcile.Pillars;

/**
 * The controller workload as its main starts it, against the fabric8 mock API server in CRUD mode
 * (the generated CRDs installed), called as the sidecars call it: over its real CSI UNIX socket with
 * a grpc-java client. Agents are behind a {@link FaultInjectingAgentClient}: the stateful fake by
 * default, or any other (the real agent over gRPC). Controllers can be started and stopped (a
 * crash, a second replica) on the same API server and agents.
 */
public final class CsiHarness implements AutoCloseable {
    public static final String AGENT = "storage-1";
    public static final String STORE = "fast";
    public static final String PROTOCOL = "tcp";
    /** The fake agent's address (TEST-NET-1: never dialled for real). */
    public static final String FAKE_HOST = "192.0.2.10";
    public static final long GIB = 1L << 30;

    public final KubernetesClient client;
    public final FaultInjectingAgentClient agents;
    private final FakeAgentClient fake;
    private final KubernetesMockServer server;
    private final Path dir;
    private final List<Controller> controllers = new ArrayList<>();

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

    private CsiHarness(Path dir, AgentClient agentClient, FakeAgentClient fake) {
        this.dir = dir;
        this.fake = fake;
        this.agents = new FaultInjectingAgentClient(agentClient);
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new StrictCrudDispatcher(),
                false);
        server.init();
        client = newClient();
        ControllerHarness.installCrds(client);
    }

    /**
     * A stateful fake agent at {@value #FAKE_HOST}:9500 with an LVM thin backend of 100 GiB, its
     * PillarAgent, PillarStore {@value #STORE} and PillarProtocol {@value #PROTOCOL}, and one
     * controller, started once the store's pool is discovered.
     */
    public static CsiHarness withFakeAgent(Path dir) {
        CsiHarness harness = fakeAgentOnly(dir);
        harness.startController("controller-a");
        harness.awaitStoreReady();
        return harness;
    }

    /** As {@link #withFakeAgent} but without a controller: the test starts its own. */
    public static CsiHarness fakeAgentOnly(Path dir) {
        FakeAgentClient fake = new FakeAgentClient();
        fake.agent(FAKE_HOST, 9500).backend("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0")
                .capacity("fast", 100 * GIB, 100 * GIB);
        CsiHarness harness = new CsiHarness(dir, fake, fake);
        harness.pillarObjects(FAKE_HOST, 9500, "vg0", "pool0");
        return harness;
    }

    /** Another agent (the real one): the caller creates the Pillar objects and starts a controller. */
    public static CsiHarness with(Path dir, AgentClient agent) {
        return new CsiHarness(dir, agent, null);
    }

    /** The PillarAgent at that address, an LVM thin store on it and a protocol binding that address. */
    public void pillarObjects(String host, int port, String volumeGroup, String thinPool) {
        client.resource(Pillars.agentAt(AGENT, host, port)).create();
        client.resource(Pillars.lvmStore(STORE, AGENT, "fast", volumeGroup, thinPool)).create();
        client.resource(Pillars.protocol(PROTOCOL, host)).create();
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
        Optional<KubernetesClient> own = ownClient ? Optional.of(newClient()) : Optional.empty();
        ControllerWorkload workload = ControllerMain.start(config, own.orElse(client), agents);
        ManagedChannel channel = Channels.unix(config.endpoint().socket());
        Controller controller = new Controller(workload, channel,
                ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS), own);
        controllers.add(controller);
        return controller;
    }

    private KubernetesClient newClient() {
        return server.createClient(new JdkHttpClientFactory());
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

    /** Stops every controller and starts a fresh one (a restart after a crash). */
    public Controller restart() {
        List.copyOf(controllers).forEach(this::stop);
        return startController("controller-" + System.nanoTime());
    }

    public void awaitStoreReady() {
        await().atMost(ControllerHarness.PATIENCE).until(() -> Optional.ofNullable(client.resources(PillarStore.class)
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
        return Optional.ofNullable(client.resources(PillarVolumeState.class).withName(volumeId).get());
    }

    /** The events recorded about the PillarVolumeState of that name, oldest first. */
    public List<io.fabric8.kubernetes.api.model.Event> events(String volumeId) {
        return client.v1().events().inNamespace(ControllerHarness.NAMESPACE).list().getItems().stream()
                .filter(e -> "PillarVolumeState".equals(e.getInvolvedObject().getKind())
                        && volumeId.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    public List<PillarVolumeState> states() {
        return client.resources(PillarVolumeState.class).list().getItems();
    }

    @Override
    public void close() {
        List.copyOf(controllers).forEach(this::stop);
        client.close();
        MockServers.destroy(server);
    }
}
