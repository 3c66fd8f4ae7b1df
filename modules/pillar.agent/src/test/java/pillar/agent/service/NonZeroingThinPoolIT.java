package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.backend.Backends;
import pillar.agent.backend.FakeLvm;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.Backend;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.ListVolumesRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.server.WorkloadServer;
import pillar.api.value.LifecycleUid;

/**
 * A thin pool that does not zero new chunks, over real gRPC: GetCapabilities reports reason
 * {@code ThinPoolNotZeroing} on that backend only (read again on each call), and CreateVolume answers
 * FAILED_PRECONDITION naming the pool, creating nothing, unless the request accepts such a pool.
 */
class NonZeroingThinPoolIT {
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private FakeLvm lvm;
    private WorkloadServer agent;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;

    @BeforeEach
    void start() {
        lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
        FakeConfigfsTree configfs = FakeConfigfsTree.create();
        List<BackendConfig> backends = List.of(new BackendConfig("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"),
                new BackendConfig("linear", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", ""));
        AgentConfig config = new AgentConfig("127.0.0.1", 0, dir.resolve("state"), configfs.root(), Optional.empty(),
                backends, "127.0.0.1", 0);
        agent = AgentMain.start(config, Backends.create(backends, lvm, lvm.host()), configfs.target());
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create()).build();
        stub = AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.close();
    }

    @Test
    void theProblemIsReportedWhileZeroingIsOffAndGoneOnceItIsOn() {
        assertThat(backends()).allSatisfy(b -> assertThat(b.hasProblem()).as(b.getName()).isFalse());

        lvm.setZeroing("pool0", false);
        List<Backend> reported = backends();
        assertThat(reported.get(0).getProblem().getReason()).isEqualTo("ThinPoolNotZeroing");
        assertThat(reported.get(0).getProblem().getMessage()).contains("lvchange --zero y vg0/pool0");
        assertThat(reported.get(0).getPool()).isEqualTo("vg0");
        assertThat(reported.get(1).hasProblem()).as("the linear backend serves").isFalse();

        lvm.setZeroing("pool0", true);
        assertThat(backends().get(0).hasProblem()).isFalse();
    }

    @Test
    void createIsRefusedWithFailedPreconditionUnlessTheRequestAcceptsThePool() {
        lvm.setZeroing("pool0", false);
        CreateVolumeRequest request = CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setBackend("thin")
                .setSizeBytes(64 * MIB).build();

        assertThatThrownBy(() -> stub.createVolume(request)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(e.getStatus().getDescription()).contains("thin pool vg0/pool0 does not zero new chunks");
        });
        assertThat(stub.listVolumes(ListVolumesRequest.newBuilder().setBackend("thin").build()).getVolumesList()).isEmpty();

        var volume = stub.createVolume(request.toBuilder().setAcceptNonZeroingThinPool(true).build()).getVolume();
        assertThat(volume.getSizeBytes()).isEqualTo(64 * MIB);
        assertThat(stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-2").setBackend("linear")
                .setSizeBytes(8 * MIB).build()).getVolume().getVolumeId()).isEqualTo("pvc-2");
    }

    private static pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(LifecycleUid.random(), 0).toProto();
    }

    private List<Backend> backends() {
        return stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getBackendsList();
    }
}
