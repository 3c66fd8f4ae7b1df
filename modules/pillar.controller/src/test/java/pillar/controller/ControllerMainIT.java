package pillar.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.server.Channels;
import pillar.api.server.CsiEndpoint;
import pillar.api.server.WorkloadConfig;
import pillar.api.server.WorkloadServer;

/** The controller workload as started by its main, configured from a YAML file, over its real socket. */
class ControllerMainIT {
    @TempDir
    Path dir;

    @Test
    void servesIdentityWithTheControllerCapability() throws Exception {
        Path socket = dir.resolve("csi.sock");
        Path file = dir.resolve("controller.yaml");
        Files.writeString(file, "csi:\n  socket: " + socket + "\nhealth:\n  host: 127.0.0.1\n  port: 0\n");
        try (WorkloadServer server = ControllerMain.start(CsiEndpoint.from(WorkloadConfig.load("--config", file.toString()), 1))) {
            ManagedChannel channel = Channels.unix(socket);
            try {
                assertThat(IdentityGrpc.newBlockingStub(channel)
                        .getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
                        .extracting(c -> c.getService().getType())
                        .containsExactly(PluginCapability.Service.Type.CONTROLLER_SERVICE);
                assertUnimplemented(() -> ControllerGrpc.newBlockingStub(channel)
                        .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance()));
                assertUnimplemented(() -> NodeGrpc.newBlockingStub(channel).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()));
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void commandLineOverridesTheFile() throws Exception {
        Path file = dir.resolve("controller.yaml");
        Files.writeString(file, "csi:\n  socket: /from/file.sock\n");
        assertThat(CsiEndpoint.from(WorkloadConfig.load("--config", file.toString()), 1).socket())
                .hasToString("/from/file.sock");
        assertThat(CsiEndpoint.from(WorkloadConfig.load("--config", file.toString(), "--csi.socket=/from/flag.sock"), 1)
                .socket()).hasToString("/from/flag.sock");
    }

    private static void assertUnimplemented(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    }
}
