package pillar.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.helidon.config.Config;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.NodeGetCapabilitiesRequest;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeServiceCapability;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.csi.v1.ProbeRequest;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.Channels;
import pillar.runtime.server.CsiEndpoint;
import pillar.runtime.server.Driver;
import pillar.runtime.server.WorkloadConfig;
import pillar.runtime.server.WorkloadServer;
import pillar.node.config.NodeConfig;

/** The node workload as its main starts it (real adapters, temporary roots), called over its real UNIX socket. */
class NodeMainIT {
    @TempDir
    Path dir;

    @Test
    void servesIdentityAndNodeAndAnswersUnimplementedForTheRest() throws Exception {
        Path socket = dir.resolve("plugins/pillar.csi.io/csi.sock");
        Config config = WorkloadConfig.load("--csi.socket=" + socket, "--health.port=0", "--health.host=127.0.0.1",
                "--node.id=worker-1", "--node.state-dir=" + dir.resolve("state"),
                "--node.kubelet-dir=" + dir.resolve("kubelet"), "--node.hostnqn-file=" + dir.resolve("etc/hostnqn"));
        CsiEndpoint endpoint = CsiEndpoint.from(config, 1);
        assertThat(endpoint.socket()).isEqualTo(socket);
        WorkloadMetrics metrics = WorkloadMetrics.from(config, "node");
        try (WorkloadServer server = NodeMain.start(endpoint, NodeMain.realPorts(NodeConfig.from(config), metrics),
                metrics)) {
            ManagedChannel channel = Channels.unix(socket);
            try {
                IdentityGrpc.IdentityBlockingStub identity = IdentityGrpc.newBlockingStub(channel);
                assertThat(identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName())
                        .isEqualTo(Driver.NAME);
                assertThat(identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue()).isTrue();
                NodeGrpc.NodeBlockingStub node = NodeGrpc.newBlockingStub(channel);
                // the node ID is the host NQN, generated into the hostnqn file on first start
                assertThat(node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId())
                        .isEqualTo(Files.readString(dir.resolve("etc/hostnqn")).strip()).startsWith("nqn.");
                // pillar-csi's one topology segment, which kubelet turns into the node's label
                assertThat(node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getAccessibleTopology().getSegmentsMap())
                        .containsExactly(Map.entry("topology.pillar.csi.io/fabric", "nvme-tcp"));
                // the plugin as a whole, as on the controller's socket: a client reading the node's learns of publish
                assertThat(identity.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
                        .extracting(c -> c.getService().getType())
                        .contains(PluginCapability.Service.Type.CONTROLLER_SERVICE,
                                PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS);
                assertThat(identity.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
                        .extracting(c -> c.getVolumeExpansion().getType()).contains(PluginCapability.VolumeExpansion.Type.ONLINE);
                assertThat(node.nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
                        .extracting(c -> c.getRpc().getType())
                        .contains(NodeServiceCapability.RPC.Type.STAGE_UNSTAGE_VOLUME,
                                NodeServiceCapability.RPC.Type.EXPAND_VOLUME);
                assertThatThrownBy(() -> node.nodeStageVolume(NodeStageVolumeRequest.getDefaultInstance()))
                        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
                                .isEqualTo(Status.Code.INVALID_ARGUMENT));
                assertThat(dir.resolve("etc/hostnqn")).exists();
                assertUnimplemented(() -> ControllerGrpc.newBlockingStub(channel)
                        .createVolume(CreateVolumeRequest.getDefaultInstance()));
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void theHostsToolsAreTimedByCommandAndOutcome() throws Exception {
        Config config = WorkloadConfig.load("--node.id=worker-1", "--node.state-dir=" + dir.resolve("state"),
                "--node.kubelet-dir=" + dir.resolve("kubelet"), "--node.hostnqn-file=" + dir.resolve("etc/hostnqn"));
        WorkloadMetrics metrics = WorkloadMetrics.from(config, "node");
        Path notADevice = Files.writeString(dir.resolve("not-a-device"), "");
        // blockdev refuses a regular file (where it is not installed, it cannot start): failed either way
        assertThatThrownBy(() -> NodeMain.realPorts(NodeConfig.from(config), metrics).filesystems().setReadOnly(notADevice))
                .isInstanceOf(CommandFailedException.class);
        assertThat(metrics.scrape()).contains("pillar_node_command_seconds_count{command=\"blockdev\",outcome=\"failed\"} 1")
                .doesNotContain("not-a-device");
    }

    @Test
    void aRelativeSocketOrBadArgumentIsRefused() {
        assertThatThrownBy(() -> CsiEndpoint.from(WorkloadConfig.load("--csi.socket=csi.sock"), 1))
                .hasMessageContaining("absolute");
        assertThatThrownBy(() -> WorkloadConfig.load("--bogus")).hasMessageContaining("unknown argument");
        assertThatThrownBy(() -> WorkloadConfig.load("--config", dir.resolve("none.yaml").toString()))
                .hasMessageContaining("does not exist");
    }

    private static void assertUnimplemented(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    }
}
