package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;
import static pillar.agent.backend.ScriptedRunner.printing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.Captures;
import pillar.agent.backend.Creation;
import pillar.agent.backend.ScriptedRunner;
import pillar.runtime.exec.Command;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * The LVM command layer on its own, answered with the real tools' captured output ({@code lvm/}):
 * the argument lists and deadline it runs, what a refused lvcreate yields, and the failures each
 * command maps (kind and message). The backend's use of it is {@link LvmBackendTest}'s.
 */
class LvmTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(7);
    private static final VolumeId PVC_A = VolumeId.of("pvc-a");
    private static final List<String> TAGS = List.of("pillar-csi", "pillar-csi.installation:embedded");

    @TempDir
    Path root;

    private Lvm lvm(ScriptedRunner runner, String thinPool) {
        // no sys/block: no NVMe-oF namespaces, so the device filter leaves every argument list as it is
        return new Lvm(runner, root.resolve("dev"), root.resolve("sys"), TIMEOUT, "vgcap", thinPool);
    }

    @Test
    void createBuildsTheLinearAndTheThinArgumentListsAndRunsThemWithTheDeadline() {
        ScriptedRunner runner = new ScriptedRunner(Captures.lvm("lvcreate-linear"), Captures.lvm("lvcreate-thin-over"));

        assertThat(lvm(runner, "").create(PVC_A, ByteSize.ofMiB(64), TAGS)).isEqualTo(new Creation.Made(false));
        assertThat(lvm(runner, "pool").create(PVC_A, ByteSize.ofGiB(1), TAGS)).isEqualTo(new Creation.Made(false));

        assertThat(runner.commands()).containsExactly(
                new Command(List.of("lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "--addtag", "pillar-csi", "--addtag",
                        "pillar-csi.installation:embedded", "-n", "pvc-a", "-L", "67108864b", "vgcap"), TIMEOUT),
                new Command(List.of("lvcreate", "-y", "--wipesignatures", "y", "--addtag", "pillar-csi", "--addtag",
                        "pillar-csi.installation:embedded", "-n", "pvc-a", "-V", "1073741824b", "--thinpool", "pool", "vgcap"), TIMEOUT));
    }

    @Test
    void lvmRoundingAgainIsSaidByTheResult() {
        ScriptedRunner runner = new ScriptedRunner(printing("  Logical volume \"pvc-a\" created.\n",
                "  Rounding up size to full physical extent 8.00 MiB\n"));

        assertThat(lvm(runner, "").create(PVC_A, ByteSize.ofMiB(6), TAGS)).isEqualTo(new Creation.Made(true));
    }

    @Test
    void aTakenNameAndTooLittleSpaceAreResultsEveryOtherRefusalIsThrown() {
        ScriptedRunner runner = new ScriptedRunner(Captures.lvm("lvcreate-linear-exists"), Captures.lvm("lvcreate-linear-nospace"),
                Captures.lvm("lvcreate-novg"), Captures.lvm("lvcreate-thin-nopool"), Captures.lvm("lvcreate-linear-unrounded"));
        Lvm linear = lvm(runner, "");

        assertThat(linear.create(PVC_A, ByteSize.ofMiB(64), TAGS)).isInstanceOfSatisfying(Creation.NameTaken.class,
                taken -> assertThat(taken.cause().stderr()).contains("already exists in volume group"));
        assertThat(linear.create(PVC_A, ByteSize.ofGiB(1), TAGS)).isInstanceOfSatisfying(Creation.NoRoom.class,
                full -> assertThat(full.cause().stderr()).contains("insufficient free space"));
        assertFails(() -> linear.create(PVC_A, ByteSize.ofMiB(64), TAGS), Kind.UNAVAILABLE,
                "volume group vgcap is not available: Volume group \"vgmissing\" not found");
        assertFails(() -> lvm(runner, "pool").create(PVC_A, ByteSize.ofMiB(64), TAGS), Kind.UNAVAILABLE,
                "thin pool vgcap/pool is not available: Pool nopool not found");
        assertFails(() -> linear.create(PVC_A, ByteSize.ofMiB(64), TAGS), Kind.FAILED, "lvcreate of pvc-a failed: lvcreate ");
    }

    @Test
    void anLvIsReadFromItsReportAndAMissingOneIsEmpty() {
        ScriptedRunner runner = new ScriptedRunner(Captures.lvm("lvs-one"), Captures.lvm("lvs-missing"), Captures.lvm("lvs-novg"));
        Lvm lvm = lvm(runner, "");

        assertThat(lvm.lv(PVC_A)).hasValueSatisfying(lv -> {
            assertThat(lv.path()).isEqualTo("/dev/vgcap/pvc-a");
            assertThat(lv.size()).isEqualTo(64 * ByteSize.MIB);
            assertThat(lv.tags()).containsExactly("pillar-csi");
        });
        assertThat(runner.lastArgv()).containsExactly("lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o",
                LvmReport.LV_FIELDS, "vgcap/pvc-a");
        assertThat(lvm.lv(PVC_A)).isEmpty();
        assertFails(() -> lvm.lv(PVC_A), Kind.UNAVAILABLE, "(are its physical volumes present and the group activated?)");
    }

    @Test
    void aVolumeGroupOrThinPoolThatIsNotThereOrNotOneIsUnavailable() {
        String linearLv = "{\"report\": [{\"lv\": [{\"lv_name\":\"pool\", \"lv_size\":\"8\", \"data_percent\":\"\","
                + " \"lv_attr\":\"-wi-a-----\", \"zero\":\"\"}]}]}";
        ScriptedRunner runner = new ScriptedRunner(Captures.lvm("vgs-missing"), Captures.lvm("lvs-empty-vg-select"),
                printing(linearLv, ""), Captures.lvm("lvs-pool"));
        Lvm thin = lvm(runner, "pool");

        assertFails(thin::volumeGroup, Kind.UNAVAILABLE, "thin pool vgcap/pool is not available: Volume group \"vgmissing\" not found");
        assertFails(thin::thinPool, Kind.UNAVAILABLE, "vgcap/pool does not exist");
        assertFails(thin::thinPool, Kind.UNAVAILABLE, "thin pool vgcap/pool is not a thin pool (lv_attr -wi-a-----)");
        assertThat(thin.thinPool().zeroing()).isTrue();
        assertThat(runner.lastArgv()).containsExactly("lvs", "--reportformat", "json", "--units", "b", "--nosuffix", "-o",
                LvmReport.POOL_FIELDS, "vgcap/pool");
    }

    @Test
    void removeTellsAnLvGoneFromAnLvHeld() {
        ScriptedRunner runner = new ScriptedRunner(Captures.lvm("lvremove"), Captures.lvm("lvremove-missing"),
                Captures.lvm("lvremove-busy"), Captures.lvm("lvremove-novg"));
        Lvm lvm = lvm(runner, "");

        assertThat(lvm.remove(PVC_A)).isEmpty();
        assertThat(runner.lastArgv()).containsExactly("lvremove", "-f", "vgcap/pvc-a");
        assertThat(lvm.remove(PVC_A)).isEmpty();
        assertThat(lvm.remove(PVC_A)).hasValueSatisfying(busy -> {
            assertThat(busy.kind()).isEqualTo(Kind.FAILED);
            assertThat(busy).hasMessageStartingWith("vgcap/pvc-a is in use: unexport it first");
        });
        assertFails(() -> lvm.remove(PVC_A), Kind.UNAVAILABLE, "volume group vgcap is not available");
    }

    @Test
    void extendMapsAMissingLvAndTooLittleSpace() {
        ScriptedRunner runner = new ScriptedRunner(Captures.lvm("lvextend-missing"), Captures.lvm("lvextend-nospace"),
                Captures.lvm("lvextend-same"));
        Lvm lvm = lvm(runner, "");

        assertFails(() -> lvm.extend(PVC_A, ByteSize.ofMiB(128)), Kind.NOT_FOUND, "volume pvc-a does not exist in volume group vgcap");
        assertThat(runner.lastArgv()).containsExactly("lvextend", "-L", "134217728b", "vgcap/pvc-a");
        assertFails(() -> lvm.extend(PVC_A, ByteSize.ofGiB(10)), Kind.NO_SPACE,
                "volume group vgcap has no room to grow pvc-a to 10GiB: Insufficient free space");
        assertFails(() -> lvm.extend(PVC_A, ByteSize.ofMiB(64)), Kind.FAILED, "lvextend of pvc-a failed");
    }
}
