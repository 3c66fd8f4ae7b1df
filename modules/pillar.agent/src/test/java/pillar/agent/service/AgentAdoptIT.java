package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.service.AgentBed.assertCode;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.Volume;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.runtime.exec.Command;

/**
 * AdoptVolume over real gRPC ({@link FakeThinAgent}: thin backend {@code fast} on a fake LVM, the real nvmet writer
 * on a fake configfs): the volume as CreateVolume answers it, a retry the same, each refusal with its code and reason
 * and the LV's tags unchanged, bad input refused before any command, and the fence of CreateVolume.
 */
class AgentAdoptIT {
    private static final long MIB = 1L << 20;
    private static final List<String> OURS = List.of("pillar-csi", "pillar-csi.installation:embedded");

    @TempDir
    Path dir;

    private final LifecycleUid lifecycle = LifecycleUid.random();
    private FakeLvm lvm;
    private FakeConfigfsTree configfs;
    private FakeThinAgent agent;

    @BeforeEach
    void start() {
        lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
        configfs = FakeConfigfsTree.create();
        agent = FakeThinAgent.start(dir.resolve("state"), configfs, lvm);
    }

    @AfterEach
    void stop() throws InterruptedException {
        agent.channel().shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        agent.agent().close();
    }

    /** As an operator runs it: {@code lvcreate [--addtag T]... -n NAME -V 64MiB --thinpool pool0 vg0}. */
    private void operatorCreates(String name, String... tags) {
        List<String> argv = new java.util.ArrayList<>(List.of("lvcreate"));
        for (String tag : tags) {
            argv.addAll(List.of("--addtag", tag));
        }
        argv.addAll(List.of("-n", name, "-V", 64 * MIB + "b", "--thinpool", "pool0", "vg0"));
        lvm.run(new Command(argv, Duration.ofSeconds(5)));
    }

    private AdoptVolumeRequest.Builder adopt(String id) {
        return AdoptVolumeRequest.newBuilder().setToken(FencingToken.of(lifecycle, 0).toProto()).setVolumeId(id).setBackend("fast");
    }

    private static void assertRefused(AgentErrorReason reason, String fragment, Runnable call) {
        StatusRuntimeException e = assertCode(Status.Code.FAILED_PRECONDITION, call);
        assertThat(AgentErrors.reasonOf(e)).isEqualTo(reason);
        assertThat(e.getStatus().getDescription()).contains(fragment);
    }

    @Test
    void aPlainThinLvIsAdoptedAsCreateAnswersARetryGetsTheSameAndItExports() {
        operatorCreates("pvc-1");

        Volume volume = agent.stub().adoptVolume(adopt("pvc-1").setMinSizeBytes(64 * MIB).build()).getVolume();

        assertThat(volume).isEqualTo(Volume.newBuilder().setVolumeId("pvc-1").setBackend("fast").setSizeBytes(64 * MIB)
                .setDevicePath(dir.resolve("dev/vg0/pvc-1").toString()).build());
        assertThat(lvm.tags("pvc-1")).containsExactlyElementsOf(OURS);
        assertThat(agent.stub().adoptVolume(adopt("pvc-1").build()).getVolume()).isEqualTo(volume);
        configfs.addBlockDevice(Path.of(volume.getDevicePath()));
        agent.stub().exportVolume(ExportVolumeRequest.newBuilder().setToken(FencingToken.of(lifecycle, 0).toProto()).setVolumeId("pvc-1")
                .setBackend("fast").setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420)).build());
        assertThat(configfs.value("subsystems/nqn.2024-06.io.pillar-csi:pvc-1/namespaces/1/enable")).contains("1");
    }

    @Test
    void eachRefusalHasItsCodeAndReasonAndLeavesTheTagsAsTheyWere() throws IOException {
        operatorCreates("pvc-f", "pillar-csi", "pillar-csi.installation:staging");
        operatorCreates("pvc-o");
        lvm.markBusy("pvc-o");
        operatorCreates("pvc-n");
        configfs.mkdir(configfs.nvmet("subsystems/testnqn"));
        configfs.mkdir(configfs.nvmet("subsystems/testnqn/namespaces/3"));
        configfs.write(configfs.nvmet("subsystems/testnqn/namespaces/3/device_path"), dir.resolve("dev/vg0/pvc-n") + "\n");

        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_FOREIGN, "staging", () -> agent.stub().adoptVolume(adopt("pvc-f").build()));
        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE, "open", () -> agent.stub().adoptVolume(adopt("pvc-o").build()));
        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE, "nvmet subsystem testnqn has it as namespace 3",
                () -> agent.stub().adoptVolume(adopt("pvc-n").build()));
        assertCode(Status.Code.OUT_OF_RANGE, () -> agent.stub().adoptVolume(adopt("pvc-n").setMinSizeBytes(65 * MIB).build()));
        assertCode(Status.Code.NOT_FOUND, () -> agent.stub().adoptVolume(adopt("pvc-none").build()));
        assertThat(lvm.tags("pvc-f")).containsExactly("pillar-csi", "pillar-csi.installation:staging");
        assertThat(lvm.tags("pvc-o")).isEmpty();
        assertThat(lvm.tags("pvc-n")).isEmpty();
    }

    @Test
    void badInputIsRefusedBeforeAnyCommandRuns() {
        operatorCreates("pvc-1");
        int before = lvm.argvs().size();

        assertCode(Status.Code.INVALID_ARGUMENT, () -> agent.stub().adoptVolume(adopt("../pvc-1").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> agent.stub().adoptVolume(adopt("pvc-1").setBackend("slow").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> agent.stub().adoptVolume(adopt("pvc-1").setMinSizeBytes(-1).build()));
        assertThat(lvm.argvs()).hasSize(before);
        assertThat(lvm.tags("pvc-1")).isEmpty();
    }

    @Test
    void theFenceOfCreateHoldsNoTokenNorAnotherLifecyclesAdopts() {
        operatorCreates("pvc-1");

        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_FENCED, "fencing", () -> agent.stub().adoptVolume(adopt("pvc-1").clearToken().build()));
        assertThat(lvm.tags("pvc-1")).isEmpty();
        agent.stub().adoptVolume(adopt("pvc-1").build());
        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_FENCED, "fencing", () -> agent.stub().adoptVolume(adopt("pvc-1")
                .setToken(FencingToken.of(LifecycleUid.random(), 5).toProto()).build()));
    }
}
