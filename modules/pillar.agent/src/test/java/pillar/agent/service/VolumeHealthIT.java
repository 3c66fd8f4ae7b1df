package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumeHealthResponse;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.api.agent.v1.DesiredExport;
import pillar.api.agent.v1.ThinPoolUsage;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * GetVolumeHealth over real gRPC, on the fake LVM and the kernel-like fake configfs: each state the
 * controller turns into an abnormal VolumeCondition is reported as it is (export wiped from the
 * kernel, LV removed behind the agent, thin pool full), the repair clears it, and bad input is
 * INVALID_ARGUMENT before anything is read.
 */
class VolumeHealthIT {
    private static final long MIB = 1L << 20;
    private static final String NQN = "nqn.2024-06.io.pillar-csi:pvc-1";

    @TempDir
    Path dir;

    private final LifecycleUid lifecycle = LifecycleUid.random();
    private FakeLvm lvm;
    private FakeConfigfsTree configfs;
    private FakeThinAgent agent;

    @BeforeEach
    void anExportedThinVolume() {
        lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
        configfs = FakeConfigfsTree.create();
        agent = FakeThinAgent.start(dir.resolve("state"), configfs, lvm);
        var volume = agent.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1")
                .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
        configfs.addBlockDevice(Path.of(volume.getDevicePath()));
        agent.stub().exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId("pvc-1").setBackend("fast")
                .setExport(spec()).build());
    }

    @AfterEach
    void stop() throws InterruptedException {
        agent.channel().shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.agent().close();
    }

    @Test
    void aHealthyVolumeIsPresentExportedAsRecordedWithItsPoolsUsage() {
        lvm.setUsage("pool0", 40, 12.5);

        assertThat(health("pvc-1")).isEqualTo(GetVolumeHealthResponse.newBuilder().setVolumePresent(true).setExportRecorded(true)
                .setThinPool(ThinPoolUsage.newBuilder().setName("vg0/pool0").setDataPercent(40).setMetadataPercent(12.5)).build());
    }

    @Test
    void anExportWipedFromTheKernelIsReportedAsDriftAndTheRepairClearsIt() {
        configfs.target().removeSubsystem(Nqn.of(NQN));

        GetVolumeHealthResponse wiped = health("pvc-1");
        assertThat(wiped.getExportRecorded()).isTrue();
        assertThat(wiped.getExportDriftList()).containsExactly("subsystem " + NQN + " missing");

        agent.stub().reconcile(ReconcileRequest.newBuilder().setToken(token()).setVolumeId("pvc-1")
                .setDesired(DesiredExport.newBuilder().setBackend("fast").setExport(spec())).build());
        assertThat(health("pvc-1").getExportDriftList()).isEmpty();
    }

    @Test
    void anLvRemovedBehindTheAgentIsNotPresentAndAFullPoolIsReported() {
        lvm.removeBehindTheAgent("pvc-1");
        lvm.setUsage("pool0", 95.5, 91);

        GetVolumeHealthResponse gone = health("pvc-1");
        assertThat(gone.getVolumePresent()).isFalse();
        assertThat(gone.getThinPool().getDataPercent()).isEqualTo(95.5);
        assertThat(gone.getThinPool().getMetadataPercent()).isEqualTo(91);
        assertThat(gone.getUnreadableList()).isEmpty();
    }

    @Test
    void aVolumeNeverExportedHasNoRecordAndNoDrift() {
        GetVolumeHealthResponse unknown = health("pvc-9");

        assertThat(unknown.getVolumePresent()).isFalse();
        assertThat(unknown.getExportRecorded()).isFalse();
        assertThat(unknown.getExportDriftList()).isEmpty();
    }

    @Test
    void badInputIsInvalidArgumentAndRunsNoCommand() {
        int commands = lvm.argvs().size();

        assertCode(() -> agent.stub().getVolumeHealth(GetVolumeHealthRequest.newBuilder().setVolumeId("../etc")
                .setBackend("fast").build()));
        assertCode(() -> agent.stub().getVolumeHealth(GetVolumeHealthRequest.newBuilder().setVolumeId("pvc-1")
                .setBackend("nope").build()));
        assertThat(lvm.argvs()).hasSize(commands);
    }

    private GetVolumeHealthResponse health(String id) {
        return agent.stub().getVolumeHealth(GetVolumeHealthRequest.newBuilder().setVolumeId(id).setBackend("fast").build());
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(lifecycle, 0).toProto();
    }

    private static ExportSpec spec() {
        return ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true).build();
    }

    private static void assertCode(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
    }
}
