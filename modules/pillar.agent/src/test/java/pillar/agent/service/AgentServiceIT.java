package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ExportVolumeResponse;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.ListVolumesRequest;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.runtime.server.WorkloadServer;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * The agent as deployed, over real gRPC: real backends on a stateful fake of the LVM tools, the real
 * nvmet writer on a fake configfs that behaves like the kernel, real durable state on disk.
 */
class AgentServiceIT {
    private static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88";
    private static final long MIB = 1L << 20;

    @TempDir
    Path dir;

    private final LifecycleUid lifecycle = LifecycleUid.random();
    private FakeLvm lvm;
    private FakeConfigfsTree configfs;
    private WorkloadServer agent;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;

    @BeforeEach
    void start() {
        lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
        configfs = FakeConfigfsTree.create();
        startAgent();
    }

    private void startAgent() {
        FakeThinAgent bed = FakeThinAgent.start(dir.resolve("state"), configfs, lvm);
        agent = bed.agent();
        channel = bed.channel();
        stub = bed.stub();
    }

    @AfterEach
    void stop() throws InterruptedException {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.close();
    }

    private pillar.api.agent.v1.FencingToken token(long generation) {
        return FencingToken.of(lifecycle, generation).toProto();
    }

    private ExportVolumeResponse createAndExport(String id) {
        var volume = stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token(0)).setVolumeId(id)
                .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
        configfs.addBlockDevice(Path.of(volume.getDevicePath()));
        return stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token(0)).setVolumeId(id).setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(true))
                .build());
    }

    @Test
    void aVolumeIsCreatedExportedGrownAndDeletedIdempotently() {
        ExportVolumeResponse export = createAndExport("pvc-1");
        assertThat(export.getSubsystemNqn()).isEqualTo("nqn.2024-06.io.pillar-csi:pvc-1");
        assertThat(createAndExport("pvc-1")).isEqualTo(export);
        stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-1").setHostNqn(HOST).build());
        assertThat(configfs.entries("subsystems/" + export.getSubsystemNqn() + "/allowed_hosts")).containsExactly(HOST);
        assertThat(configfs.value("subsystems/" + export.getSubsystemNqn() + "/namespaces/1/enable")).contains("1");
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();
        // someone else changes the kernel's target: ListExports reports the drift
        configfs.target().disallowHost(Nqn.of(export.getSubsystemNqn()), Nqn.of(HOST));
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList())
                .anySatisfy(line -> assertThat(line).contains(HOST));
        stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-1").setHostNqn(HOST).build());
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();

        long grown = stub.expandVolume(ExpandVolumeRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-1")
                .setBackend("fast").setRequiredBytes(128 * MIB).build()).getSizeBytes();
        assertThat(grown).isEqualTo(128 * MIB);
        assertThat(stub.listVolumes(ListVolumesRequest.newBuilder().setBackend("fast").build()).getVolumesList())
                .extracting(v -> v.getVolumeId() + "=" + v.getSizeBytes()).containsExactly("pvc-1=" + 128 * MIB);
        assertThat(stub.getCapacity(GetCapacityRequest.newBuilder().setBackend("fast").build()).getTotalBytes())
                .isEqualTo(512 * MIB);

        DeleteVolumeRequest delete = DeleteVolumeRequest.newBuilder().setToken(token(2)).setVolumeId("pvc-1")
                .setBackend("fast").build();
        stub.deleteVolume(delete);
        stub.deleteVolume(delete);
        assertThat(configfs.entries("subsystems")).isEmpty();
        assertThat(configfs.entries("ports")).isEmpty();
        assertThat(stub.listVolumes(ListVolumesRequest.newBuilder().setBackend("fast").build()).getVolumesList()).isEmpty();
        // the ended lifecycle is fenced off for good
        assertCode(Status.Code.FAILED_PRECONDITION, () -> stub.createVolume(CreateVolumeRequest.newBuilder()
                .setToken(token(3)).setVolumeId("pvc-1").setBackend("fast").setSizeBytes(MIB).build()));
    }

    /**
     * An exclusive allow leaves the export admitting that host alone, in the record and the kernel,
     * whatever was allowed before (a deny that never arrived); on an export without an ACL it is refused.
     */
    @Test
    void anExclusiveAllowLeavesTheHostAloneAndIsRefusedWithoutAnAcl() {
        String other = "nqn.2014-08.org.nvmexpress:uuid:0f9c2a6e-7c1b-4b8e-9a57-000000000002";
        ExportVolumeResponse export = createAndExport("pvc-9");
        stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token(1)).setVolumeId("pvc-9").setHostNqn(other).build());
        stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token(2)).setVolumeId("pvc-9").setHostNqn(HOST)
                .setExclusive(true).build());
        assertThat(configfs.entries("subsystems/" + export.getSubsystemNqn() + "/allowed_hosts")).containsExactly(HOST);
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getAllowedHostsList())
                .containsExactly(HOST);
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExports(0).getDriftList()).isEmpty();

        var open = stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token(0)).setVolumeId("pvc-10")
                .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
        configfs.addBlockDevice(Path.of(open.getDevicePath()));
        stub.exportVolume(ExportVolumeRequest.newBuilder().setToken(token(0)).setVolumeId("pvc-10").setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420).setAclEnabled(false)).build());
        assertCode(Status.Code.FAILED_PRECONDITION, () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder()
                .setToken(token(1)).setVolumeId("pvc-10").setHostNqn(HOST).setExclusive(true).build()));
    }

    @Test
    void staleMissingAndForeignTokensAreRefusedAndChangeNothing() {
        createAndExport("pvc-2");
        stub.unexportVolume(UnexportVolumeRequest.newBuilder().setToken(token(5)).setVolumeId("pvc-2").build());
        int commands = lvm.argvs().size();
        List<String> journal = configfs.journal();
        assertCode(Status.Code.FAILED_PRECONDITION, () -> stub.expandVolume(ExpandVolumeRequest.newBuilder()
                .setToken(token(4)).setVolumeId("pvc-2").setBackend("fast").setRequiredBytes(256 * MIB).build()));
        assertCode(Status.Code.FAILED_PRECONDITION, () -> stub.deleteVolume(DeleteVolumeRequest.newBuilder()
                .setVolumeId("pvc-2").setBackend("fast").build()));
        assertCode(Status.Code.FAILED_PRECONDITION, () -> stub.deleteVolume(DeleteVolumeRequest.newBuilder()
                .setToken(FencingToken.of(LifecycleUid.random(), 99).toProto()).setVolumeId("pvc-2").setBackend("fast").build()));
        assertThat(lvm.argvs()).hasSize(commands);
        assertThat(configfs.journal()).isEqualTo(journal);
    }

    @Test
    void hostileInputIsRefusedBeforeAnythingIsTouched() {
        int commands = lvm.argvs().size();
        List<String> journal = configfs.journal();
        for (String id : List.of("", "../etc", "-rf", "a/b", "PVC", "a\0b", "x".repeat(64))) {
            assertCode(Status.Code.INVALID_ARGUMENT, () -> stub.createVolume(CreateVolumeRequest.newBuilder()
                    .setToken(token(0)).setVolumeId(id).setBackend("fast").setSizeBytes(MIB).build()));
        }
        assertCode(Status.Code.INVALID_ARGUMENT, () -> stub.createVolume(CreateVolumeRequest.newBuilder()
                .setToken(token(0)).setVolumeId("pvc-3").setBackend("../fast").setSizeBytes(MIB).build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> stub.createVolume(CreateVolumeRequest.newBuilder()
                .setToken(token(0)).setVolumeId("pvc-3").setBackend("fast").setSizeBytes(0).build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> stub.createVolume(CreateVolumeRequest.newBuilder()
                .setToken(token(0)).setVolumeId("pvc-3").setBackend("fast").setSizeBytes(MIB)
                .putOptions("--config", "x").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> stub.exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(token(0)).setVolumeId("pvc-3").setBackend("fast")
                .setExport(ExportSpec.newBuilder().setBindAddress("evil.example.com").setPort(4420)).build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder()
                .setToken(token(0)).setVolumeId("pvc-3").setHostNqn("nqn.2014-08.org/../../x").build()));
        assertThat(lvm.argvs()).hasSize(commands);
        assertThat(configfs.journal()).isEqualTo(journal);
    }

    @Test
    void aRestartOnAnEmptyConfigfsReappliesEveryExportBeforeReady() throws InterruptedException {
        ExportVolumeResponse export = createAndExport("pvc-4");
        stub.allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token(0)).setVolumeId("pvc-4").setHostNqn(HOST).build());
        stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token(0)).setVolumeId("pvc-orphan").setBackend("fast")
                .setSizeBytes(MIB).build());
        stop();
        Path device = dir.resolve("dev/vg0/pvc-4");
        configfs = FakeConfigfsTree.create().addBlockDevice(device); // a reboot: the kernel forgot everything
        // ... except an export whose record is gone (a crash between the record's removal and the kernel's)
        configfs.target().ensureSubsystem(Nqn.of("nqn.2024-06.io.pillar-csi:pvc-orphan"), true);
        // ... and another installation's on this host, of a volume no backend of this agent holds
        configfs.target().ensureSubsystem(Nqn.of("nqn.2024-06.io.pillar-csi:pvc-theirs"), true);
        startAgent();
        assertThat(configfs.entries("subsystems")).containsExactlyInAnyOrder(export.getSubsystemNqn(),
                "nqn.2024-06.io.pillar-csi:pvc-theirs");
        assertThat(configfs.entries("subsystems/" + export.getSubsystemNqn() + "/allowed_hosts")).containsExactly(HOST);
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExportsList())
                .extracting(e -> e.getVolumeId()).containsExactly("pvc-4");
        // and the fencing marks survived: a stale call is still refused
        assertCode(Status.Code.FAILED_PRECONDITION, () -> stub.unexportVolume(UnexportVolumeRequest.newBuilder()
                .setToken(FencingToken.of(LifecycleUid.random(), 0).toProto()).setVolumeId("pvc-4").build()));
    }

    private static void assertCode(Status.Code code, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code));
    }

    @Test
    void aThinPoolThatDoesNotZeroIsReportedEachTimeAndRefusedUnlessTheCreateAcceptsIt() {
        assertThat(backends().getProblem().getReason()).isEmpty();
        lvm.setZeroing("pool0", false);
        assertThat(backends().getProblem().getReason()).isEqualTo("ThinPoolNotZeroing");
        assertThat(backends().getProblem().getMessage()).contains("lvchange --zero y vg0/pool0");
        CreateVolumeRequest request = CreateVolumeRequest.newBuilder().setToken(token(0)).setVolumeId("pvc-z").setBackend("fast")
                .setSizeBytes(64 * MIB).build();

        assertThatThrownBy(() -> stub.createVolume(request)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(e.getStatus().getDescription()).contains("thin pool vg0/pool0 does not zero new chunks");
        });
        assertThat(stub.listVolumes(ListVolumesRequest.newBuilder().setBackend("fast").build()).getVolumesList()).isEmpty();
        assertThat(stub.createVolume(request.toBuilder().setAcceptNonZeroingThinPool(true).build()).getVolume().getSizeBytes())
                .isEqualTo(64 * MIB);

        lvm.setZeroing("pool0", true);
        assertThat(backends().hasProblem()).isFalse();
    }

    /** The bed's 512 MiB thin pool at the default ratio 1: its thin volumes add up to 512 MiB at most. */
    @Test
    void aCreateOrExpandBeyondTheThinPoolsRatioIsResourceExhaustedAndCapacityShowsWhatIsLeft() {
        stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token(0)).setVolumeId("pvc-1").setBackend("fast")
                .setSizeBytes(400 * MIB).build());

        assertThatThrownBy(() -> stub.createVolume(CreateVolumeRequest.newBuilder().setToken(token(0)).setVolumeId("pvc-2")
                .setBackend("fast").setSizeBytes(200 * MIB).build())).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
                    assertThat(e.getStatus().getDescription()).contains("thin pool vg0/pool0 cannot take volume pvc-2 of 200MiB: its thin"
                            + " volumes already add up to 400MiB of the 512MiB its over-provisioning ratio 1 allows");
                });
        assertThat(lvm.exists("pvc-2")).isFalse();
        assertThat(stub.getCapacity(GetCapacityRequest.newBuilder().setBackend("fast").build()).getAvailableBytes())
                .isEqualTo(112 * MIB);
        assertCode(Status.Code.RESOURCE_EXHAUSTED, () -> stub.expandVolume(ExpandVolumeRequest.newBuilder().setToken(token(1))
                .setVolumeId("pvc-1").setBackend("fast").setRequiredBytes(600 * MIB).build()));
        assertThat(lvm.sizeOf("pvc-1")).isEqualTo(400 * MIB);
    }

    private pillar.api.agent.v1.Backend backends() {
        return stub.getCapabilities(pillar.api.agent.v1.GetCapabilitiesRequest.getDefaultInstance()).getBackends(0);
    }
}
