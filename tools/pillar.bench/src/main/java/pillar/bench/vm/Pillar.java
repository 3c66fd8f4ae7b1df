package pillar.bench.vm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import pillar.agent.AgentMain;
import pillar.agent.backend.Backends;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.context.PublishContext;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.api.fencing.FencingToken;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGrpc;
import pillar.runtime.server.Channels;
import pillar.runtime.server.CsiEndpoint;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.WorkloadConfig;
import pillar.runtime.server.WorkloadServer;
import pillar.api.value.LifecycleUid;
import pillar.node.NodeMain;
import pillar.node.config.NodeConfig;
import pillar.node.service.NodePorts;

/**
 * pillar-csi in the VM, every adapter real: the agent ({@link AgentMain#start} on the LVM thin backend
 * and the kernel's configfs, called over gRPC on TCP as the controller calls it) and the node, both
 * its CSI server ({@link NodeMain#start} on a UNIX socket) and its adapters (the fabrics initiator,
 * sysfs, the filesystem tools, the JNA mounter), whose calls are the steps NodeStageVolume and
 * NodeUnstageVolume take, timed one by one.
 */
final class Pillar implements AutoCloseable {
    static final String BACKEND = "thin";

    final NodePorts node;
    final Path socket;
    private final WorkloadServer agentServer;
    private final WorkloadServer nodeServer;
    private final ManagedChannel channel;
    private final AgentServiceGrpc.AgentServiceBlockingStub agent;

    /** On the kernel's configfs ({@code configfs} is /sys/kernel/config; a stand-in directory for the training run). */
    Pillar(Path work, Path configfs, String vg, String pool) {
        List<BackendConfig> backends = List.of(new BackendConfig(BACKEND, BackendKind.BACKEND_KIND_LVM_THIN, vg, pool));
        AgentConfig config = new AgentConfig("127.0.0.1", 0, work.resolve("agent-state"), configfs, Optional.empty(), backends,
                "127.0.0.1", 0);
        agentServer = AgentMain.start(config, Backends.create(backends, new SystemProcessRunner()), new ConfigfsNvmetTarget(configfs));
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agentServer.grpcPort(), InsecureChannelCredentials.create()).build();
        agent = AgentServiceGrpc.newBlockingStub(channel);
        WorkloadMetrics nodeMetrics = WorkloadMetrics.create("node");
        node = NodeMain.realPorts(NodeConfig.from(WorkloadConfig.load("--node.id=vm-worker",
                "--node.state-dir=" + work.resolve("node-state"), "--node.kubelet-dir=" + work.resolve("kubelet"),
                "--node.hostnqn-file=" + work.resolve("hostnqn"))), nodeMetrics);
        socket = work.resolve("node/csi.sock");
        nodeServer = NodeMain.start(new CsiEndpoint(socket, "127.0.0.1", 0), node, nodeMetrics);
    }

    /** Calls that need no kernel: the class-loading part of a training run. */
    void touch() {
        agent().getCapabilities(GetCapabilitiesRequest.getDefaultInstance());
        agent().listExports(ListExportsRequest.getDefaultInstance());
        ManagedChannel unix = Channels.unix(socket);
        try {
            NodeGrpc.newBlockingStub(unix).withDeadlineAfter(1, TimeUnit.MINUTES).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
        } finally {
            unix.shutdownNow();
        }
    }

    private AgentServiceGrpc.AgentServiceBlockingStub agent() {
        return agent.withDeadlineAfter(5, TimeUnit.MINUTES);
    }

    /** A volume's lifecycle on the agent: its token (generation 1; 2 for the delete that ends it). */
    static FencingToken token(LifecycleUid life, long generation) {
        return FencingToken.of(life, generation);
    }

    Path create(String id, LifecycleUid life, long bytes) {
        return Path.of(agent().createVolume(CreateVolumeRequest.newBuilder().setToken(token(life, 1).toProto()).setVolumeId(id)
                .setBackend(BACKEND).setSizeBytes(bytes).build()).getVolume().getDevicePath());
    }

    /** Exports on 127.0.0.1:4420 with an ACL; returns the subsystem NQN. */
    String export(String id, LifecycleUid life) {
        return agent().exportVolume(ExportVolumeRequest.newBuilder().setToken(token(life, 1).toProto()).setVolumeId(id)
                .setBackend(BACKEND).setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true))
                .build()).getSubsystemNqn();
    }

    void allow(String id, LifecycleUid life) {
        agent().allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token(life, 1).toProto()).setVolumeId(id)
                .setHostNqn(node.hostNqn().value()).build());
    }

    void expand(String id, LifecycleUid life, long bytes) {
        agent().expandVolume(ExpandVolumeRequest.newBuilder().setToken(token(life, 1).toProto()).setVolumeId(id)
                .setBackend(BACKEND).setRequiredBytes(bytes).build());
    }

    void unexport(String id, LifecycleUid life) {
        agent().unexportVolume(UnexportVolumeRequest.newBuilder().setToken(token(life, 1).toProto()).setVolumeId(id).build());
    }

    void delete(String id, LifecycleUid life) {
        agent().deleteVolume(DeleteVolumeRequest.newBuilder().setToken(token(life, 2).toProto()).setVolumeId(id)
                .setBackend(BACKEND).build());
    }

    /** The publish context the controller would hand kubelet for this subsystem. */
    static Map<String, String> context(String nqn) {
        return Map.of(PublishContext.NQN, nqn, PublishContext.TRANSPORT, "tcp", PublishContext.TRADDR, "127.0.0.1",
                PublishContext.TRSVCID, "4420", PublishContext.CTRL_LOSS_TMO, "30", PublishContext.RECONNECT_DELAY, "2");
    }

    static Duration patience() {
        return Duration.ofMinutes(2);
    }

    @Override
    public void close() {
        channel.shutdownNow();
        nodeServer.close();
        agentServer.close();
    }
}
