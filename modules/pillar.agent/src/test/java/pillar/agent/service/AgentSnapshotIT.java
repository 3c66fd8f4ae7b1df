package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
import pillar.agent.backend.zfs.FakeZfs;
import pillar.agent.backend.zfs.ZfsVolumeBackend;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CopyMode;
import pillar.api.agent.v1.CreateSnapshotRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteSnapshotRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.ListSnapshotsRequest;
import pillar.api.agent.v1.Snapshot;
import pillar.api.agent.v1.VolumeSource;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.runtime.server.WorkloadServer;

/**
 * The snapshot RPCs over real gRPC on a ZFS backend of the stateful fake: fencing by the snapshot's own
 * token (refusals, the tombstone), idempotency, the codes, and CreateVolume from a snapshot and a volume.
 */
class AgentSnapshotIT {
    private static final long MIB = 1L << 20;
    private static final String ZVOL_ID = "/lib/udev/zvol_id";

    @TempDir
    Path dir;

    private final LifecycleUid volumeLife = LifecycleUid.random();
    private final LifecycleUid snapshotLife = LifecycleUid.random();
    private FakeZfs zfs;
    private WorkloadServer agent;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;

    @BeforeEach
    void start() {
        FakeConfigfsTree configfs = FakeConfigfsTree.create();
        zfs = new FakeZfs("tank", 4096 * MIB, dir.resolve("dev"), dir.resolve("sys"), ZVOL_ID, FakeZfs.Devices.UDEV)
                .withFilesystem("tank/k8s");
        BackendConfig backend = new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        AgentConfig config = new AgentConfig("127.0.0.1", 0, dir.resolve("state"), configfs.root(), Optional.empty(), List.of(backend),
                "127.0.0.1", 0);
        agent = AgentMain.start(config, Map.of("zfs", new ZfsVolumeBackend(backend, zfs, dir.resolve("dev"), dir.resolve("sys"),
                Path.of(ZVOL_ID), Duration.ofSeconds(5), Duration.ofSeconds(5))), configfs.target());
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create()).build();
        stub = AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
        stub.createVolume(CreateVolumeRequest.newBuilder().setToken(FencingToken.of(volumeLife, 0).toProto()).setVolumeId("pvc-src")
                .setBackend("zfs").setSizeBytes(64 * MIB).build());
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.close();
    }

    private pillar.api.agent.v1.FencingToken snapshotToken() {
        return FencingToken.of(snapshotLife, 1).toProto();
    }

    private CreateSnapshotRequest.Builder create(String id, String source) {
        return CreateSnapshotRequest.newBuilder().setToken(snapshotToken()).setSnapshotId(id).setBackend("zfs").setSourceVolumeId(source);
    }

    private static void assertCode(Status.Code code, String fragment, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code)).hasMessageContaining(fragment);
    }

    @Test
    void aSnapshotIsTakenListedRestoredAndDeletedIdempotently() {
        assertThat(stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getBackends(0).getSnapshots()).isTrue();

        Snapshot taken = stub.createSnapshot(create("snapshot-1", "pvc-src").build()).getSnapshot();

        assertThat(taken.getSourceVolumeId()).isEqualTo("pvc-src");
        assertThat(taken.getSizeBytes()).isEqualTo(64 * MIB);
        assertThat(taken.getReadyToUse()).isTrue();
        assertThat(stub.createSnapshot(create("snapshot-1", "pvc-src").build()).getSnapshot()).isEqualTo(taken);
        assertThat(stub.listSnapshots(ListSnapshotsRequest.newBuilder().setBackend("zfs").build()).getSnapshotsList()).containsExactly(taken);

        CreateVolumeRequest restore = CreateVolumeRequest.newBuilder().setToken(FencingToken.of(LifecycleUid.random(), 0).toProto())
                .setVolumeId("pvc-restored").setBackend("zfs").setSizeBytes(128 * MIB)
                .setSource(VolumeSource.newBuilder().setSnapshotId("snapshot-1")).build();
        assertThat(stub.createVolume(restore).getVolume().getSizeBytes()).isEqualTo(128 * MIB);
        assertThat(stub.createVolume(restore).getVolume().getSizeBytes()).isEqualTo(128 * MIB);
        assertCode(Status.Code.OUT_OF_RANGE, "smaller than its source", () -> stub.createVolume(restore.toBuilder()
                .setVolumeId("pvc-small").setSizeBytes(32 * MIB).build()));
        assertCode(Status.Code.NOT_FOUND, "does not exist", () -> stub.createVolume(restore.toBuilder().setVolumeId("pvc-none")
                .setSource(VolumeSource.newBuilder().setSnapshotId("snapshot-none")).build()));
        CreateVolumeRequest cloned = restore.toBuilder().setVolumeId("pvc-clone").setSizeBytes(64 * MIB)
                .setSource(VolumeSource.newBuilder().setVolumeId("pvc-src").setMode(CopyMode.COPY_MODE_INDEPENDENT)).build();
        assertThat(stub.createVolume(cloned).getVolume().getVolumeId()).isEqualTo("pvc-clone");

        DeleteSnapshotRequest delete = DeleteSnapshotRequest.newBuilder().setToken(snapshotToken()).setSnapshotId("snapshot-1")
                .setBackend("zfs").build();
        stub.deleteSnapshot(delete);
        stub.deleteSnapshot(delete);
        assertThat(stub.listSnapshots(ListSnapshotsRequest.newBuilder().setBackend("zfs").build()).getSnapshotsList()).isEmpty();
        // the lifecycle has ended: its token can never make the snapshot again
        assertCode(Status.Code.FAILED_PRECONDITION, "fencing", () -> stub.createSnapshot(create("snapshot-1", "pvc-src").build()));
        assertThat(zfs.exists("tank/k8s/pvc-src@snapshot-1")).as("deferred while pvc-restored depends on it").isTrue();
        stub.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(FencingToken.of(volumeLife, 1).toProto()).setVolumeId("pvc-src")
                .setBackend("zfs").build());
        stub.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(restore.getToken()).setVolumeId("pvc-restored").setBackend("zfs").build());
        stub.deleteVolume(DeleteVolumeRequest.newBuilder().setToken(restore.getToken()).setVolumeId("pvc-clone").setBackend("zfs").build());
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s");
    }

    @Test
    void snapshotCallsWithoutOrWithAForeignTokenAreRefusedAndChangeNothing() {
        assertCode(Status.Code.FAILED_PRECONDITION, "fencing", () -> stub.createSnapshot(create("snapshot-2", "pvc-src").clearToken().build()));
        assertThat(zfs.exists("tank/k8s/pvc-src@snapshot-2")).isFalse();
        stub.createSnapshot(create("snapshot-2", "pvc-src").build());
        assertCode(Status.Code.FAILED_PRECONDITION, "fencing", () -> stub.deleteSnapshot(DeleteSnapshotRequest.newBuilder()
                .setToken(FencingToken.of(LifecycleUid.random(), 1).toProto()).setSnapshotId("snapshot-2").setBackend("zfs").build()));
        assertCode(Status.Code.FAILED_PRECONDITION, "fencing", () -> stub.deleteSnapshot(DeleteSnapshotRequest.newBuilder()
                .setSnapshotId("snapshot-2").setBackend("zfs").build()));
        assertThat(zfs.exists("tank/k8s/pvc-src@snapshot-2")).isTrue();
    }

    @Test
    void theCodesSayWhatWentWrongBeforeAnythingIsTouched() {
        stub.createSnapshot(create("snapshot-3", "pvc-src").build());
        stub.createVolume(CreateVolumeRequest.newBuilder().setToken(FencingToken.of(volumeLife, 0).toProto()).setVolumeId("pvc-other")
                .setBackend("zfs").setSizeBytes(64 * MIB).build());

        assertCode(Status.Code.ALREADY_EXISTS, "not of pvc-other", () -> stub.createSnapshot(create("snapshot-3", "pvc-other").build()));
        assertCode(Status.Code.NOT_FOUND, "pvc-none", () -> stub.createSnapshot(CreateSnapshotRequest.newBuilder()
                .setToken(FencingToken.of(LifecycleUid.random(), 1).toProto()).setSnapshotId("snapshot-4").setBackend("zfs")
                .setSourceVolumeId("pvc-none").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "snapshot_id", () -> stub.createSnapshot(create("../x", "pvc-src").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, "volume_id", () -> stub.createVolume(CreateVolumeRequest.newBuilder()
                .setToken(FencingToken.of(LifecycleUid.random(), 0).toProto()).setVolumeId("pvc-x").setBackend("zfs")
                .setSizeBytes(64 * MIB).setSource(VolumeSource.newBuilder().setVolumeId("../pvc-src")).build()));
        assertThat(zfs.below("tank/k8s")).containsExactly("tank/k8s", "tank/k8s/pvc-other", "tank/k8s/pvc-src",
                "tank/k8s/pvc-src@snapshot-3");
    }
}
