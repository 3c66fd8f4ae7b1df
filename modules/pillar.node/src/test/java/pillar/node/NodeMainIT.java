package pillar.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.ProbeRequest;
import pillar.api.server.Channels;
import pillar.api.server.CsiEndpoint;
import pillar.api.server.Driver;
import pillar.api.server.WorkloadConfig;
import pillar.api.server.WorkloadServer;

/** The node workload as started by its main, called over its real UNIX socket. */
class NodeMainIT {
    @TempDir
    Path dir;

    @Test
    void servesIdentityAndAnswersUnimplementedForTheRest() throws Exception {
        Path socket = dir.resolve("plugins/pillar.csi.io/csi.sock");
        CsiEndpoint endpoint = CsiEndpoint.from(
                WorkloadConfig.load("--csi.socket=" + socket, "--health.port=0", "--health.host=127.0.0.1"), 1);
        assertThat(endpoint.socket()).isEqualTo(socket);
        try (WorkloadServer server = NodeMain.start(endpoint)) {
            ManagedChannel channel = Channels.unix(socket);
            try {
                IdentityGrpc.IdentityBlockingStub identity = IdentityGrpc.newBlockingStub(channel);
                assertThat(identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName())
                        .isEqualTo(Driver.NAME);
                assertThat(identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue()).isTrue();
                assertUnimplemented(() -> NodeGrpc.newBlockingStub(channel)
                        .nodeStageVolume(NodeStageVolumeRequest.getDefaultInstance()));
                assertUnimplemented(() -> ControllerGrpc.newBlockingStub(channel)
                        .createVolume(CreateVolumeRequest.getDefaultInstance()));
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
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
