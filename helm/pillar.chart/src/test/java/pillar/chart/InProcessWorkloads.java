package pillar.chart;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import pillar.agent.AgentMain;
import pillar.agent.backend.Backends;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.controller.KubernetesClients;
import pillar.runtime.metrics.TimedProcessRunner;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.state.StateCheck;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.BackendKind;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.ControllerUnpublishVolumeRequest;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.DeleteVolumeRequest;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeUnpublishVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.NodeId;
import pillar.api.value.Nqn;
import pillar.controller.ControllerConfig;
import pillar.controller.ControllerMain;
import pillar.controller.ControllerWorkload;
import pillar.controller.agent.GrpcAgentClient;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.LvmStore;
import pillar.controller.crd.NvmeofTcp;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarAgentSpec;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarProtocolSpec;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.PillarStoreSpec;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.reconcile.MockServers;
import pillar.node.NodeMain;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.fs.FilesystemTools;
import pillar.node.mount.FakeMounter;
import pillar.node.nvme.FakeInitiator;
import pillar.node.nvme.HostNqn;
import pillar.node.nvme.SysfsNvme;
import pillar.node.service.KubeletPaths;
import pillar.node.service.NodePorts;
import pillar.node.stage.StageRecords;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.Channels;
import pillar.runtime.server.CsiEndpoint;
import pillar.runtime.server.WorkloadConfig;
import pillar.runtime.server.WorkloadServer;

/**
 * The three workloads in this JVM as the chart deploys them, each started by its own public start
 * method over the fakes of its own tests: the agent on the stateful LVM fake (a thin pool) and the
 * kernel-like configfs fake, the node on the fake initiator, mounter and filesystem tools, the
 * controller on fabric8's mock API (CRUD mode, the chart's CRDs) reaching the agent over real gRPC.
 * {@link #lifecycle} plays one volume's life as the sidecars and the kubelet drive it, a refused
 * call, and a call the agent's fencing refuses; {@link #scrapes} reads each workload's
 * {@code /metrics} over HTTP on its health port.
 */
final class InProcessWorkloads implements AutoCloseable {
    private static final long MIB = 1L << 20;
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final String NAMESPACE = "pillar-system";
    private static final String STORE = "fast";
    private static final String PROTOCOL = "tcp";
    private static final List<BackendConfig> BACKENDS = List.of(new BackendConfig(STORE, BackendKind.BACKEND_KIND_LVM_THIN, "vg0",
            "pool0"));
    private static final VolumeCapability RWO = VolumeCapability.newBuilder()
            .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
            .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
            .build();

    private final Path dir;
    private final Map<String, WorkloadServer> servers = new LinkedHashMap<>();
    private final FakeConfigfsTree configfs = FakeConfigfsTree.create();
    private final FakeInitiator initiator;
    private final KubernetesMockServer api;
    private final KubernetesClient client;
    private final ManagedChannel agentChannel;
    private final ManagedChannel nodeChannel;
    private final ManagedChannel controllerChannel;
    private ControllerWorkload controller;

    InProcessWorkloads(Path dir) throws IOException {
        this.dir = dir;
        FakeLvm lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
        AgentConfig agentConfig = new AgentConfig("127.0.0.1", 0, dir.resolve("agent-state"), configfs.root(), Optional.empty(),
                BACKENDS, "127.0.0.1", 0, "storage-1", Optional.empty());
        // as AgentMain.launch builds them: the host commands and the configfs calls timed into the served metrics
        WorkloadMetrics agentMetrics = WorkloadMetrics.create("agent");
        var target = configfs.target(agentMetrics);
        StateCheck.Verdict state = AgentMain.checkState(agentConfig, target);
        WorkloadServer agent = AgentMain.start(agentConfig, Backends.create(BACKENDS,
                new TimedProcessRunner(lvm, agentMetrics), lvm.host(), state.installation()), target, state, agentMetrics);
        servers.put("agent", agent);
        // the store gauges are read in the background from the end of the agent's start-up, the thin pool's usage last
        await("the agent's first store readings", () -> agentMetrics.scrape().contains("pillar_agent_thin_pool_metadata_ratio{"));
        agentChannel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create()).build();

        Path node = Files.createDirectories(dir.resolve("node"));
        Path sys = Files.createDirectories(node.resolve("sys"));
        Path dev = Files.createDirectories(node.resolve("dev"));
        Nqn host = HostNqn.loadOrCreate(node.resolve("hostnqn"));
        initiator = new FakeInitiator(sys, dev, host);
        WorkloadMetrics nodeMetrics = WorkloadMetrics.create("node");
        NodePorts ports = new NodePorts(NodeId.of("worker-1"), host, new FakeMounter(), initiator, new SysfsNvme(sys, dev),
                new FilesystemTools(new TimedProcessRunner(new FakeProcessRunner(), nodeMetrics)),
                new StageRecords(node.resolve("state")), new KubeletPaths(Files.createDirectories(node.resolve("kubelet"))),
                Duration.ofSeconds(30), nodeKeys());
        servers.put("node", NodeMain.start(new CsiEndpoint(node.resolve("csi.sock"), "127.0.0.1", 0), ports, nodeMetrics));
        nodeChannel = Channels.unix(node.resolve("csi.sock"));

        api = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        api.init();
        Path socket = dir.resolve("controller.sock");
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load("--csi.socket=" + socket, "--health.host=127.0.0.1",
                "--health.port=0", "--controller.namespace=" + NAMESPACE, "--controller.poll-interval=300ms",
                "--controller.leader-election.enabled=false"));
        // as ControllerMain builds it: every API request counted into the controller's metrics
        try (KubernetesClient plain = api.createClient(new JdkHttpClientFactory())) {
            client = KubernetesClients.create(plain.getConfiguration(), config.metrics());
        }
        installCrds();
        pillarObjects(agent.grpcPort());
        controller = ControllerMain.start(config, client, new GrpcAgentClient(Optional.empty(), GrpcAgentClient.Settings.defaults()));
        servers.put("controller", controller.server());
        controllerChannel = Channels.unix(socket);
        await("the PillarStore " + STORE + " to report PoolDiscovered", () -> Optional.ofNullable(
                client.resources(PillarStore.class).withName(STORE).get()).filter(s -> s.getStatus() != null)
                .map(s -> Conditions.isTrue(s.getStatus().getConditions(), PillarStore.POOL_DISCOVERED)).orElse(false));
    }

    /**
     * One volume created, published, staged, published to a pod and all of it undone; a CreateVolume
     * without a name (INVALID_ARGUMENT); and a CreateVolume to the agent of another lifecycle than
     * the one its fencing mark holds (refused).
     */
    void lifecycle() throws IOException {
        String id = "pvc-metrics";
        configfs.addBlockDevice(dir.resolve("dev/vg0").resolve(id));
        ControllerGrpc.ControllerBlockingStub csi = ControllerGrpc.newBlockingStub(controllerChannel)
                .withDeadlineAfter(60, TimeUnit.SECONDS);
        NodeGrpc.NodeBlockingStub node = NodeGrpc.newBlockingStub(nodeChannel).withDeadlineAfter(60, TimeUnit.SECONDS);
        csi.createVolume(CreateVolumeRequest.newBuilder().setName(id)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(64 * MIB)).addVolumeCapabilities(RWO)
                .putParameters(StorageClassParameters.STORE, STORE).putParameters(StorageClassParameters.PROTOCOL, PROTOCOL).build());
        String nodeId = node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId();
        Map<String, String> context = csi.controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder().setVolumeId(id)
                .setNodeId(nodeId).setVolumeCapability(RWO).build()).getPublishContextMap();
        offer(context);
        Path kubelet = dir.resolve("node/kubelet");
        Path staging = Files.createDirectories(kubelet.resolve("plugins/kubernetes.io/csi/pillar.csi.io").resolve(id))
                .resolve("globalmount");
        Path target = Files.createDirectories(kubelet.resolve("pods/pod-1/volumes/kubernetes.io~csi").resolve(id)).resolve("mount");
        node.nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging.toString())
                .setVolumeCapability(RWO).putAllPublishContext(context).build());
        node.nodePublishVolume(NodePublishVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging.toString())
                .setTargetPath(target.toString()).setVolumeCapability(RWO).build());
        node.nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(id).setTargetPath(target.toString()).build());
        node.nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(id).setStagingTargetPath(staging.toString())
                .build());
        csi.controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(id).setNodeId(nodeId).build());
        csi.deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(id).build());
        refused(() -> csi.createVolume(CreateVolumeRequest.getDefaultInstance()));

        AgentServiceGrpc.AgentServiceBlockingStub agent = AgentServiceGrpc.newBlockingStub(agentChannel)
                .withDeadlineAfter(60, TimeUnit.SECONDS);
        for (LifecycleUid lifecycle : List.of(LifecycleUid.random(), LifecycleUid.random())) {
            try {
                agent.createVolume(pillar.api.agent.v1.CreateVolumeRequest.newBuilder().setVolumeId("pvc-fenced").setBackend(STORE)
                        .setSizeBytes(16 * MIB).setToken(FencingToken.of(lifecycle, 0).toProto()).build());
            } catch (StatusRuntimeException e) {
                // the second lifecycle: what the fencing refusal meter counts
            }
        }
    }

    /** Each workload's {@code /metrics} (agent, node, controller): the body, or the HTTP status when it is not 200. */
    Map<String, Scrape> scrapes() throws IOException, InterruptedException {
        Map<String, Scrape> scrapes = new LinkedHashMap<>();
        try (HttpClient http = HttpClient.newHttpClient()) {
            for (Map.Entry<String, WorkloadServer> server : servers.entrySet()) {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.getValue().healthPort() + WorkloadMetrics.PATH)).build(), HttpResponse.BodyHandlers.ofString());
                scrapes.put(server.getKey(), new Scrape(response.statusCode(), response.statusCode() == 200 ? response.body() : ""));
            }
        }
        return scrapes;
    }

    /** A workload's answer at {@code /metrics}. */
    record Scrape(int status, String text) {
        /** The name of every sample (a histogram's {@code _bucket}, {@code _count}, {@code _sum}; a counter's {@code _total}). */
        List<String> sampleNames() {
            return text.lines().filter(line -> !line.isBlank() && !line.startsWith("#"))
                    .map(line -> line.split("[{ ]", 2)[0]).distinct().toList();
        }
    }

    /** What the target the node connects to offers: the subsystem of the publish context, a sparse file its namespace. */
    private void offer(Map<String, String> context) throws IOException {
        Path backing = dir.resolve("backing.img");
        try (RandomAccessFile file = new RandomAccessFile(backing.toFile(), "rw")) {
            file.setLength(64 * MIB);
        }
        initiator.export(new FakeInitiator.Export(Nqn.of(context.get(PublishContext.NQN)), context.get(PublishContext.TRADDR),
                Integer.parseInt(context.get(PublishContext.TRSVCID)), backing, () -> 64 * MIB));
    }

    private static void refused(Runnable call) {
        try {
            call.run();
        } catch (StatusRuntimeException e) {
            return;
        }
        throw new AssertionError("the call was expected to be refused");
    }

    /** The CRDs as the chart ships them. */
    private void installCrds() throws IOException {
        try (Stream<Path> files = Files.list(HelmChart.dir().resolve("crds"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    client.apiextensions().v1().customResourceDefinitions()
                            .resource(client.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class)).create();
                }
            }
        }
    }

    /** The agent at 127.0.0.1, its thin store and an NVMe/TCP protocol binding 127.0.0.1 (what the fake configfs listens on). */
    private void pillarObjects(int agentPort) {
        PillarAgentSpec agent = new PillarAgentSpec();
        agent.setAddress("127.0.0.1");
        agent.setPort(agentPort);
        client.resource(named(new PillarAgent(), "storage-1", agent)).create();
        LvmStore lvm = new LvmStore();
        lvm.setBackend(STORE);
        lvm.setVolumeGroup("vg0");
        lvm.setThinPool("pool0");
        PillarStoreSpec store = new PillarStoreSpec();
        store.setAgent("storage-1");
        store.setLvm(lvm);
        client.resource(named(new PillarStore(), STORE, store)).create();
        NvmeofTcp tcp = new NvmeofTcp();
        tcp.setBindAddress("127.0.0.1");
        PillarProtocolSpec protocol = new PillarProtocolSpec();
        protocol.setNvmeofTcp(tcp);
        client.resource(named(new PillarProtocol(), PROTOCOL, protocol)).create();
    }

    private static <T extends CustomResource<S, ?>, S> T named(T object, String name, S spec) {
        object.setMetadata(new ObjectMetaBuilder().withName(name).build());
        object.setSpec(spec);
        return object;
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("gave up waiting for " + what);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    @Override
    public void close() {
        Stream.of(agentChannel, nodeChannel, controllerChannel).forEach(ManagedChannel::shutdownNow);
        if (controller != null) {
            controller.close();
        }
        servers.remove("controller");
        servers.values().forEach(WorkloadServer::close);
        client.close();
        MockServers.destroy(api);
    }

    /** The node's keyring of TLS keys: one in memory for the run. */
    private static java.util.function.Supplier<pillar.runtime.keys.Keyring> nodeKeys() {
        pillar.testkit.FakeKeyring keys = new pillar.testkit.FakeKeyring();
        return () -> keys;
    }
}
