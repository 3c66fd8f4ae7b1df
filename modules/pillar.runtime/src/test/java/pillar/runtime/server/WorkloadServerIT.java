package pillar.runtime.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.helidon.logging.common.HelidonMdc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.GroupControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.GroupControllerGrpc;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGetInfoResponse;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.csi.v1.ProbeRequest;
import pillar.runtime.metrics.WorkloadMetrics;

/** A workload server on a real UNIX socket, called by a real gRPC client. */
class WorkloadServerIT {
    @TempDir
    Path dir;

    private final AtomicBoolean ready = new AtomicBoolean(true);
    private final AtomicReference<String> volumeSeenByLog = new AtomicReference<>();
    private final WorkloadMetrics metrics = WorkloadMetrics.create("node");
    private WorkloadServer server;
    private ManagedChannel channel;

    /** A Node service that implements one call, logging, to show the others stay UNIMPLEMENTED. */
    private final class OneCallNode extends NodeGrpc.NodeImplBase {
        private final Logger log = Logger.getLogger("pillar.test.node");

        @Override
        public void nodeGetInfo(NodeGetInfoRequest request, StreamObserver<NodeGetInfoResponse> response) {
            response.onNext(NodeGetInfoResponse.newBuilder().setNodeId("worker-1").build());
            response.onCompleted();
        }

        @Override
        public void nodeStageVolume(NodeStageVolumeRequest request,
                                    StreamObserver<pillar.api.csi.v1.NodeStageVolumeResponse> response) {
            log.info("staging");
            super.nodeStageVolume(request, response);
        }
    }

    @BeforeEach
    void start() {
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if ("staging".equals(record.getMessage())) {
                    volumeSeenByLog.set(HelidonMdc.get(VolumeLogContext.KEY).orElse("none") + "|"
                            + HelidonMdc.get(VolumeLogContext.ID_KEY).orElse("none"));
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger.getLogger("pillar.test.node").addHandler(capture);
        IdentityService identity = new IdentityService(ready::get);
        WorkloadServer.Builder builder = WorkloadServer.builder()
                .unixSocket(dir.resolve("csi/csi.sock"))
                .health("127.0.0.1", 0)
                .readiness("test", ready::get)
                .metrics(metrics);
        CsiServices.node(identity, new OneCallNode()).forEach(builder::service);
        server = builder.start();
        channel = Channels.unix(dir.resolve("csi/csi.sock"));
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.close();
    }

    @Test
    void identityAnswersOverTheUnixSocket() {
        IdentityGrpc.IdentityBlockingStub identity = IdentityGrpc.newBlockingStub(channel);
        var info = identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
        assertThat(info.getName()).isEqualTo("pillar.csi.io");
        assertThat(info.getVendorVersion()).isEqualTo(Driver.version()).isNotBlank().doesNotContain("${");
        assertThat(identity.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
                .isEqualTo(Driver.pluginCapabilities());
        assertThat(identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue()).isTrue();
        ready.set(false);
        assertThat(identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue()).isFalse();
    }

    @Test
    void callsNotImplementedAnswerUnimplementedNotNotFound() {
        assertThat(NodeGrpc.newBlockingStub(channel).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId())
                .isEqualTo("worker-1");
        assertCode(() -> NodeGrpc.newBlockingStub(channel)
                .nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId("pvc-1").build()));
        assertCode(() -> ControllerGrpc.newBlockingStub(channel).createVolume(CreateVolumeRequest.getDefaultInstance()));
        assertCode(() -> GroupControllerGrpc.newBlockingStub(channel)
                .groupControllerGetCapabilities(GroupControllerGetCapabilitiesRequest.getDefaultInstance()));
    }

    @Test
    void logLinesAboutAVolumeCarryItsId() {
        assertCode(() -> NodeGrpc.newBlockingStub(channel)
                .nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId("pvc-42").build()));
        assertThat(volumeSeenByLog.get()).isEqualTo("volume=pvc-42 |pvc-42");
    }

    @Test
    void healthReportsLivenessAndReadiness() throws Exception {
        URI base = URI.create("http://127.0.0.1:" + server.healthPort() + "/observe/health/");
        assertThat(status(base.resolve("live"))).isEqualTo(200);
        assertThat(status(base.resolve("ready"))).isEqualTo(200);
        ready.set(false);
        assertThat(status(base.resolve("ready"))).isEqualTo(503);
        assertThat(status(base.resolve("live"))).isEqualTo(200);
    }

    @Test
    void metricsCountEveryCallByMethodAndCodeOnTheHealthPort() throws Exception {
        NodeGrpc.newBlockingStub(channel).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
        NodeGrpc.newBlockingStub(channel).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
        assertCode(() -> NodeGrpc.newBlockingStub(channel)
                .nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId("pvc-7").build()));
        HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + server.healthPort()
                + WorkloadMetrics.PATH).toURL().openConnection();
        String text;
        try {
            assertThat(connection.getResponseCode()).isEqualTo(200);
            assertThat(connection.getContentType()).startsWith("text/plain; version=0.0.4");
            text = new String(connection.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } finally {
            connection.disconnect();
        }
        assertThat(text).contains("# TYPE pillar_csi_operation_seconds histogram")
                .contains("pillar_csi_operation_seconds_count{code=\"OK\",method=\"NodeGetInfo\",workload=\"node\"} 2")
                .contains("pillar_csi_operation_seconds_count{code=\"UNIMPLEMENTED\",method=\"NodeStageVolume\",workload=\"node\"} 1")
                .doesNotContain("pvc-7");
    }

    @Test
    void disabledMetricsAreNotServed() throws Exception {
        IdentityService identity = new IdentityService(() -> true);
        WorkloadServer.Builder builder = WorkloadServer.builder().unixSocket(dir.resolve("off.sock"))
                .health("127.0.0.1", 0).metrics(WorkloadMetrics.disabled("node"));
        CsiServices.node(identity, new CsiServices.UnimplementedNode()).forEach(builder::service);
        try (WorkloadServer off = builder.start()) {
            assertThat(status(URI.create("http://127.0.0.1:" + off.healthPort() + WorkloadMetrics.PATH))).isEqualTo(404);
        }
    }

    @Test
    void overTcpEveryReplyIsSentAtOnceNotHeldForTheCallersAck() throws Exception {
        IdentityService identity = new IdentityService(() -> true);
        WorkloadServer.Builder builder = WorkloadServer.builder().tcp("127.0.0.1", 0).health("127.0.0.1", 0);
        CsiServices.node(identity, new CsiServices.UnimplementedNode()).forEach(builder::service);
        try (WorkloadServer tcp = builder.start()) {
            // Nagle's algorithm held each reply's last frames for the caller's delayed ACK: ~40 ms a call
            assertThat(tcp.grpcNoDelay()).isTrue();
            ManagedChannel other = ManagedChannelBuilder.forAddress("127.0.0.1", tcp.grpcPort()).usePlaintext().build();
            assertThat(IdentityGrpc.newBlockingStub(other).getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName())
                    .isEqualTo(Driver.NAME);
            other.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aStaleSocketFromACrashedRunIsReplacedAndRemovedOnClose() throws Exception {
        Path socket = dir.resolve("other.sock");
        Files.writeString(socket, "stale");
        IdentityService identity = new IdentityService(() -> true);
        WorkloadServer.Builder builder = WorkloadServer.builder().unixSocket(socket).health("127.0.0.1", 0);
        CsiServices.node(identity, new CsiServices.UnimplementedNode()).forEach(builder::service);
        try (WorkloadServer second = builder.start()) {
            ManagedChannel other = Channels.unix(socket);
            assertThat(IdentityGrpc.newBlockingStub(other).getPluginInfo(GetPluginInfoRequest.getDefaultInstance())
                    .getName()).isEqualTo(Driver.NAME);
            other.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        assertThat(socket).doesNotExist();
    }

    @Test
    void closeStopsServingThenRunsTheCloseActionsInOrderEvenAfterOneFails() {
        java.util.List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        IdentityService identity = new IdentityService(() -> true);
        WorkloadServer.Builder builder = WorkloadServer.builder().tcp("127.0.0.1", 0).health("127.0.0.1", 0);
        CsiServices.node(identity, new CsiServices.UnimplementedNode()).forEach(builder::service);
        AtomicReference<WorkloadServer> started = new AtomicReference<>();
        builder.onClose(() -> ran.add("first, serving: " + started.get().isRunning()))
                .onClose(() -> {
                    throw new IllegalStateException("a failing action");
                })
                .onClose(() -> ran.add("third"));
        started.set(builder.start());
        assertThat(ran).isEmpty();
        started.get().close();
        assertThat(ran).containsExactly("first, serving: false", "third");
    }

    private static int status(URI uri) throws Exception {
        HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
        try {
            return connection.getResponseCode();
        } finally {
            connection.disconnect();
        }
    }

    private static void assertCode(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    }
}
