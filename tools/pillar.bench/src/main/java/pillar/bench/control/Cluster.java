package pillar.bench.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.grpc.ManagedChannel;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGrpc;
import pillar.runtime.server.Channels;
import pillar.bench.proc.Daemon;
import pillar.bench.proc.Launches;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.PillarStore;

/**
 * The control plane of the benchmarks, one JVM per workload as deployed: the emulated Kubernetes API
 * (fabric8's mock server in CRUD mode, tools/pillar.sandbox), the fake-backed agent and node
 * ({@code pillar.bench.fake}) and the real controller (its jlink runtime when built, else its module
 * path); the Pillar objects created and the store's pool discovered. State and sockets live under a tmpfs directory; logs
 * under {@code logs}. The caller plays kubelet and the sidecars through {@link #controller()} and
 * {@link #node()}.
 */
public final class Cluster implements AutoCloseable {
    public static final long VOLUME_BYTES = 1L << 30;
    private static final Duration PATIENCE = Duration.ofMinutes(3);

    private final Launches launches;
    private final Path work;
    private final Path logs;
    private final KubernetesClient client;
    private final HttpClient http = HttpClient.newHttpClient();
    private final Daemon api;
    private final int agentPort = Launches.freePort();
    private final int agentHealth = Launches.freePort();
    private final int controllerHealth = Launches.freePort();
    private final int nodeHealth = Launches.freePort();
    private final boolean metrics;
    private Daemon agent;
    private final Daemon node;
    private Daemon controller;
    private final List<ManagedChannel> channels = new ArrayList<>();
    private ControllerGrpc.ControllerBlockingStub controllerStub;
    private final NodeGrpc.NodeBlockingStub nodeStub;
    private final String nodeId;
    private final Map<String, Duration> readyAfter = new LinkedHashMap<>();
    private int starts;

    public Cluster(Launches launches, Path work, Path logs) {
        this(launches, work, logs, true);
    }

    /** A cluster whose three workloads serve metrics, or ({@code metrics} false) run with {@code metrics.enabled=false}. */
    public Cluster(Launches launches, Path work, Path logs, boolean metrics) {
        this.launches = launches;
        this.metrics = metrics;
        this.work = work;
        this.logs = logs;
        Path kubeconfig = work.resolve("kubeconfig");
        try {
            Files.createDirectories(work);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        api = Daemon.start("kube-api", launches.kubeApi(Launches.freePort(), kubeconfig, work), logs.resolve("kube-api.log"));
        try {
            api.awaitLog("Kubernetes API EMULATOR", PATIENCE);
            client = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
                    .withHttpClientFactory(new JdkHttpClientFactory()).build();
            startAgent();
            Path nodeSocket = work.resolve("node/csi.sock");
            node = Daemon.start("node", launches.fakeNode(List.of("--socket=" + nodeSocket, "--health-port=" + nodeHealth,
                    "--root=" + work.resolve("node"), "--volume-bytes=" + VOLUME_BYTES, "--metrics=" + metrics)),
                    logs.resolve("node.log"));
            readyAfter.put("node", node.awaitReady(nodeHealth, PATIENCE));
            nodeStub = NodeGrpc.newBlockingStub(channel(nodeSocket));
            nodeId = nodeStub.withDeadlineAfter(30, TimeUnit.SECONDS).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId();
            PillarObjects.create(client, agentPort);
            startController();
            awaitPoolDiscovered();
        } catch (IOException | RuntimeException e) {
            close();
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
    }

    /** How the cluster's JVMs are started. */
    public Launches launches() {
        return launches;
    }

    /** Starts (or starts again, over the same state directory) the agent; returns its launch-to-ready time. */
    public Duration startAgent() {
        return startAgent(List.of());
    }

    /** {@link #startAgent()} with extra JVM flags (an AOT cache). */
    public Duration startAgent(List<String> extraFlags) {
        agent = Daemon.start("agent", launches.fakeAgent(extraFlags, List.of("--port=" + agentPort, "--health-port=" + agentHealth,
                "--state=" + work.resolve("agent-state"), "--volume-bytes=" + VOLUME_BYTES, "--metrics=" + metrics)),
                logs.resolve("agent-" + ++starts + ".log"));
        Duration ready = agent.awaitReady(agentHealth, PATIENCE);
        readyAfter.put("agent", ready);
        return ready;
    }

    /** Starts (or starts again) the controller; returns its launch-to-ready time (informers synced). */
    public Duration startController() {
        return startController(List.of());
    }

    /** {@link #startController()} with extra JVM flags (an AOT cache). */
    public Duration startController(List<String> extraFlags) {
        Path socket = work.resolve("controller/csi.sock");
        controller = Daemon.start("controller", launches.real("controller", extraFlags, List.of("--csi.socket=" + socket,
                "--health.host=127.0.0.1", "--health.port=" + controllerHealth, "--kubernetes.kubeconfig=" + work.resolve("kubeconfig"),
                "--controller.namespace=pillar-system", "--metrics.enabled=" + metrics)),
                logs.resolve("controller-" + ++starts + ".log"));
        Duration ready = controller.awaitReady(controllerHealth, PATIENCE);
        readyAfter.put("controller", ready);
        controllerStub = ControllerGrpc.newBlockingStub(channel(socket));
        return ready;
    }

    /**
     * An AOT cache for the agent (JDK 25, -XX:AOTCacheOutput): a second fake agent on a state directory
     * of its own, started to readiness, through one export cycle over gRPC, stopped (it writes the cache).
     */
    public void trainAgent(Path cache) {
        int port = Launches.freePort();
        int health = Launches.freePort();
        Daemon training = Daemon.start("agent-training", launches.fakeAgent(List.of("-XX:AOTCacheOutput=" + cache),
                List.of("--port=" + port, "--health-port=" + health, "--state=" + work.resolve("training-state"))),
                logs.resolve("agent-training.log"));
        training.awaitReady(health, PATIENCE);
        AgentCycle.run(port);
        training.stop(Duration.ofMinutes(10));
        requireCache(cache, training);
    }

    /** An AOT cache for the controller: a second controller started to readiness and stopped. */
    public void trainController(Path cache) {
        int health = Launches.freePort();
        Daemon training = Daemon.start("controller-training", launches.real("controller", List.of("-XX:AOTCacheOutput=" + cache),
                List.of("--csi.socket=" + work.resolve("training/csi.sock"), "--health.host=127.0.0.1", "--health.port=" + health,
                        "--kubernetes.kubeconfig=" + work.resolve("kubeconfig"), "--controller.namespace=pillar-system")),
                logs.resolve("controller-training.log"));
        training.awaitReady(health, PATIENCE);
        training.stop(Duration.ofMinutes(10));
        requireCache(cache, training);
    }

    private static void requireCache(Path cache, Daemon training) {
        if (!Files.isRegularFile(cache)) {
            throw new IllegalStateException(training.name() + " wrote no AOT cache " + cache + "; see " + training.log());
        }
    }

    public void stopAgent() {
        agent.close();
    }

    public void stopController() {
        controller.close();
    }

    private void awaitPoolDiscovered() {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!Optional.ofNullable(client.resources(PillarStore.class).withName(PillarObjects.STORE).get())
                .filter(s -> s.getStatus() != null)
                .map(s -> Conditions.isTrue(s.getStatus().getConditions(), PillarStore.POOL_DISCOVERED)).orElse(false)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("PillarStore " + PillarObjects.STORE + " never reported PoolDiscovered=True; see "
                        + logs);
            }
            pause(100);
        }
    }

    private ManagedChannel channel(Path socket) {
        ManagedChannel channel = Channels.unix(socket);
        channels.add(channel);
        return channel;
    }

    public ControllerGrpc.ControllerBlockingStub controller() {
        return controllerStub.withDeadlineAfter(120, TimeUnit.SECONDS);
    }

    public NodeGrpc.NodeBlockingStub node() {
        return nodeStub.withDeadlineAfter(120, TimeUnit.SECONDS);
    }

    /** The node ID NodeGetInfo answered (the host NQN): what ControllerPublishVolume is given. */
    public String nodeId() {
        return nodeId;
    }

    /** The kubelet directory of the fake node. */
    public Path kubelet() {
        return work.resolve("node/kubelet");
    }

    public KubernetesClient client() {
        return client;
    }

    /** What the emulated API has served so far: requests, and the time it spent serving them. */
    public record ApiServed(long requests, long nanos) {
    }

    /** Reads the emulator's request count ({@code pillar.sandbox.CountingDispatcher}); its own request is not counted. */
    public ApiServed apiServed() {
        HttpRequest request = HttpRequest.newBuilder(URI.create(client.getMasterUrl().toString().replaceAll("/$", "")
                + "/pillar-emulator/requests")).timeout(Duration.ofSeconds(30)).build();
        try {
            HttpResponse<String> answer = http.send(request, HttpResponse.BodyHandlers.ofString());
            String[] fields = answer.body().trim().split(" ");
            if (answer.statusCode() != 200 || fields.length != 2) {
                throw new IllegalStateException("the API emulator answered " + answer.statusCode() + " " + answer.body());
            }
            return new ApiServed(Long.parseLong(fields[0]), Long.parseLong(fields[1]));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The workload JVMs, by name: kube-api, agent, node, controller. */
    public Map<String, Daemon> daemons() {
        Map<String, Daemon> all = new LinkedHashMap<>();
        all.put("controller", controller);
        all.put("agent", agent);
        all.put("node", node);
        all.put("kube-api (emulator)", api);
        return all;
    }

    /** Each workload's health port, where it serves {@code /metrics}: controller, agent, node. */
    public Map<String, Integer> healthPorts() {
        return Map.of("controller", controllerHealth, "agent", agentHealth, "node", nodeHealth);
    }

    public Map<String, Duration> readyAfter() {
        return readyAfter;
    }

    public Daemon agent() {
        return agent;
    }

    public Daemon controllerDaemon() {
        return controller;
    }

    @Override
    public void close() {
        channels.forEach(ManagedChannel::shutdownNow);
        http.close();
        if (client != null) {
            client.close();
        }
        for (Daemon d : new Daemon[] {controller, node, agent, api}) {
            if (d != null) {
                d.close();
            }
        }
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
