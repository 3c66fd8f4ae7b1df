package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.DeviceData;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.VolumeSource.Mode;
import pillar.agent.backend.VolumeSource;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * Thin snapshots, restores and clones on real LVM in the VM (the bed of {@link LvmBackendKernelIT}: a
 * volume group on a loop device with a thin pool): data written through a thin LV's device is what a
 * restore of its snapshot reads (a larger restore included, in its first source-size bytes), a clone
 * reads the source's data and then writes on either side stay on that side, and every delete order
 * leaves only the pool in {@code lvs}. One test pins what the fake LVM assumes of lvm2: the tags and
 * flags a thin snapshot gets, and the failures the backend recognises.
 */
class LvmSnapshotKernelIT {
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final long MIB = 1L << 20;
    private static final ByteSize SIZE = ByteSize.ofMiB(16);
    private static final VolumeId SRC = VolumeId.of("pvc-src");
    private static final SnapshotId SNAP = SnapshotId.of("snapshot-1");

    private final ProcessRunner runner = new SystemProcessRunner();
    private final String vg = "ksl" + UUID.randomUUID().toString().substring(0, 8);

    @TempDir
    Path work;

    private String loopDevice;
    private LvmBackend thin;

    @BeforeAll
    static void onlyInTheKernelVm() {
        assertThat(System.getenv("PILLAR_KERNEL_VM")).as("PILLAR_KERNEL_VM: use dev/kernel-it").isEqualTo("1");
        assertThat(Path.of("/dev/mapper/control")).as("device-mapper (module dm-mod)").exists();
    }

    @BeforeEach
    void volumeGroupWithAThinPoolOnALoopDevice() throws Exception {
        Path image = work.resolve("pv.img");
        try (FileChannel file = FileChannel.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            file.truncate(0).position(512L << 20).write(ByteBuffer.wrap(new byte[1])); // 512 MiB, sparse
        }
        loopDevice = sh("losetup", "-f", "--show", image.toString()).strip();
        sh("pvcreate", "-y", loopDevice);
        sh("vgcreate", vg, loopDevice);
        sh("lvcreate", "-y", "--type", "thin-pool", "-L", "256m", "-n", "pool0", vg);
        thin = LvmBackend.of(new BackendConfig("lvm-thin", BackendKind.BACKEND_KIND_LVM_THIN, vg, "pool0"), runner, Path.of("/dev"),
                Path.of("/sys"), DEADLINE, Duration.ofSeconds(10));
    }

    @AfterEach
    void removeEverything() {
        if (loopDevice != null) {
            quietly("vgremove", "-f", vg);
            quietly("losetup", "-d", loopDevice);
        }
    }

    @Test
    void restoresReadTheSnapshotTimeDataAndDeletingTheSnapshotFirstLeavesNothing() throws Exception {
        BackendVolume src = thin.create(SRC, SIZE, Map.of());
        String atSnapshot = DeviceData.write(src, 1);
        Instant before = Instant.now().minusSeconds(2);
        BackendSnapshot snapshot = thin.snapshot(SNAP, SRC);
        assertThat(snapshot.size()).isEqualTo(SIZE);
        assertThat(snapshot.created()).isBetween(before, Instant.now().plusSeconds(2));
        assertThat(thin.snapshot(SNAP, SRC)).isEqualTo(snapshot);
        assertThat(thin.listSnapshots()).containsExactly(snapshot);
        assertThat(thin.list()).extracting(BackendVolume::id).containsExactly(SRC);
        assertThat(Path.of("/dev", vg, "snap.snapshot-1")).as("a snapshot is left inactive").doesNotExist();
        String later = DeviceData.write(src, 2);
        assertThat(later).isNotEqualTo(atSnapshot);

        BackendVolume restored = restore(VolumeId.of("pvc-restored"), SIZE);
        BackendVolume larger = restore(VolumeId.of("pvc-larger"), ByteSize.ofMiB(32));

        assertThat(DeviceData.hash(restored, SIZE.bytes())).isEqualTo(atSnapshot);
        assertThat(DeviceData.hash(larger, SIZE.bytes())).isEqualTo(atSnapshot);
        assertThat(kernelSize(larger.device())).isEqualTo(32 * MIB);
        assertThat(DeviceData.hash(src, SIZE.bytes())).isEqualTo(later);
        assertThat(restore(VolumeId.of("pvc-restored"), SIZE)).isEqualTo(restored);
        assertThat(tags("pvc-restored")).containsExactlyInAnyOrder("pillar-csi", LvmBackend.INSTALLATION_TAG + "embedded",
                "pillar-csi.content:snapshot/snapshot-1/linked/16777216");
        assertThat(attr("pvc-restored").charAt(9)).as("a restore is activated by every activation").isEqualTo('-');
        assertFails(() -> thin.create(VolumeId.of("pvc-copy"), SIZE, Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromSnapshot(SNAP, Mode.INDEPENDENT)), Kind.INVALID, "shares its blocks");

        thin.deleteSnapshot(SNAP);
        thin.deleteSnapshot(SNAP);
        assertThat(thin.findSnapshot(SNAP)).isEmpty();
        assertThat(DeviceData.hash(restored, SIZE.bytes())).as("a restore does not depend on its snapshot").isEqualTo(atSnapshot);
        sh("lvchange", "-an", vg + "/pvc-restored");
        assertThat(thin.find(VolumeId.of("pvc-restored")).orElseThrow().device()).exists();
        assertThat(DeviceData.hash(restored, SIZE.bytes())).isEqualTo(atSnapshot);
        thin.delete(VolumeId.of("pvc-restored"));
        thin.delete(VolumeId.of("pvc-larger"));
        thin.delete(SRC);
        assertOnlyThePoolLeft();
    }

    @Test
    void aCloneReadsTheSourceAndThenWritesStayOnTheirSide() throws Exception {
        BackendVolume src = thin.create(SRC, SIZE, Map.of());
        String before = DeviceData.write(src, 3);

        BackendVolume clone = thin.create(VolumeId.of("pvc-clone"), SIZE, Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromVolume(SRC, Mode.DEFAULT));
        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(before);

        String cloneData = DeviceData.write(clone, 4);
        assertThat(DeviceData.hash(src, SIZE.bytes())).isEqualTo(before);
        String srcData = DeviceData.write(src, 5);
        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(cloneData);
        assertThat(srcData).isNotEqualTo(before);
        assertThat(thin.listSnapshots()).isEmpty();

        // the source before its clone
        thin.delete(SRC);
        assertThat(thin.find(SRC)).isEmpty();
        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(cloneData);
        thin.delete(VolumeId.of("pvc-clone"));
        assertOnlyThePoolLeft();
    }

    @Test
    void deletingTheSourceBeforeItsSnapshotKeepsTheSnapshotRestorable() throws Exception {
        BackendVolume src = thin.create(SRC, SIZE, Map.of());
        String atSnapshot = DeviceData.write(src, 6);
        thin.snapshot(SNAP, SRC);
        BackendVolume first = restore(VolumeId.of("pvc-first"), SIZE);

        thin.delete(SRC);
        assertThat(thin.find(SRC)).isEmpty();
        assertThat(thin.list()).extracting(BackendVolume::id).containsExactly(VolumeId.of("pvc-first"));
        assertThat(thin.findSnapshot(SNAP)).hasValueSatisfying(s -> assertThat(s.source()).isEqualTo(SRC));
        BackendVolume again = restore(VolumeId.of("pvc-again"), SIZE);
        assertThat(DeviceData.hash(again, SIZE.bytes())).isEqualTo(atSnapshot);
        assertThat(DeviceData.hash(first, SIZE.bytes())).isEqualTo(atSnapshot);

        // then the restores before the snapshot, the snapshot last
        thin.delete(VolumeId.of("pvc-first"));
        thin.delete(VolumeId.of("pvc-again"));
        thin.deleteSnapshot(SNAP);
        assertOnlyThePoolLeft();
    }

    /**
     * What FakeLvm assumes of lvm2 2.03, printed first (for the record) and then asserted: a thin
     * snapshot carries only the tags given (none copied from its origin), has the activation-skip flag
     * and stays inactive, unless made with -kn; and the failures of lvcreate -s and lvchange --deltag.
     */
    @Test
    void whatLvm2DoesWithThinSnapshots() {
        sh("lvcreate", "-y", "-n", "origin", "-V", "16m", "--thinpool", "pool0", "--addtag", "pillar-csi", "--addtag", "origin-tag", vg);
        String made = sh("lvcreate", "-y", "-s", "--addtag", "pillar-csi.snapshot", "-n", "snap.a", vg + "/origin");
        sh("lvcreate", "-y", "-s", "-kn", "--addtag", "mine", "-n", "restore", vg + "/snap.a");
        String report = sh("lvs", "-o", "lv_name,lv_attr,lv_tags,origin,lv_time,lv_size", "--units", "b", vg);
        CommandFailedException missing = failure("lvcreate", "-y", "-s", "-n", "snap.b", vg + "/nothing");
        CommandFailedException taken = failure("lvcreate", "-y", "-s", "-n", "snap.a", vg + "/origin");
        String untag = sh("lvchange", "--deltag", "not-there", vg + "/restore");
        sh("lvremove", "-f", vg + "/origin");
        String afterOrigin = sh("lvs", "-o", "lv_name,lv_attr,origin", vg);
        System.out.println("[fact] lvcreate -s: " + made + "\n[fact] lvs:\n" + report
                + "\n[fact] missing origin: rc " + missing.exitCode() + ": " + missing.stderr()
                + "\n[fact] name taken: rc " + taken.exitCode() + ": " + taken.stderr()
                + "\n[fact] lvchange --deltag of a missing tag: " + untag
                + "\n[fact] after lvremove of the origin:\n" + afterOrigin);

        assertThat(tags("snap.a")).containsExactly("pillar-csi.snapshot");
        assertThat(tags("restore")).containsExactly("mine");
        assertThat(attr("snap.a")).matches("Vwi---tz-k");
        assertThat(attr("restore")).matches("Vwi-a-tz--");
        assertThat(Path.of("/dev", vg, "snap.a")).doesNotExist();
        assertThat(LvmFailure.of(missing)).as(missing.stderr()).isEqualTo(LvmFailure.LV_NOT_FOUND);
        assertThat(LvmFailure.of(taken)).as(taken.stderr()).isEqualTo(LvmFailure.EXISTS);
    }

    private BackendVolume restore(VolumeId id, ByteSize size) {
        return thin.create(id, size, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, Mode.LINKED));
    }

    private void assertOnlyThePoolLeft() {
        assertThat(sh("lvs", "--noheadings", "-o", "lv_name", vg).strip().lines().map(String::strip).toList()).containsExactly("pool0");
    }

    private List<String> tags(String lv) {
        String tags = sh("lvs", "--noheadings", "-o", "lv_tags", vg + "/" + lv).strip();
        return tags.isEmpty() ? List.of() : List.of(tags.split(","));
    }

    private String attr(String lv) {
        return sh("lvs", "--noheadings", "-o", "lv_attr", vg + "/" + lv).strip();
    }

    private long kernelSize(Path device) {
        return Long.parseLong(sh("blockdev", "--getsize64", device.toString()).strip());
    }

    private CommandFailedException failure(String... argv) {
        try {
            sh(argv);
        } catch (CommandFailedException e) {
            return e;
        }
        throw new AssertionError(String.join(" ", argv) + " succeeded");
    }

    private String sh(String... argv) {
        return runner.run(new Command(List.of(argv), DEADLINE)).stdout();
    }

    private void quietly(String... argv) {
        try {
            sh(argv);
        } catch (RuntimeException e) {
            System.err.println("cleanup: " + e.getMessage());
        }
    }
}
