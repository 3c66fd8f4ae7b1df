package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.VolumeSource.Mode;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * Snapshots, restores and clones on real OpenZFS in the VM (the bed of {@link ZfsBackendKernelIT}: a
 * pool on a loop device): data written through a zvol's device is what a LINKED and an INDEPENDENT
 * restore of its snapshot read (a larger restore included, in its first source-size bytes), a clone
 * reads the source's data and then writes on either side stay on that side, and every delete order
 * leaves only the parent in {@code zfs list -t all -r}.
 */
class ZfsSnapshotKernelIT {
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final long MIB = 1L << 20;
    private static final ByteSize SIZE = ByteSize.ofMiB(16);
    private static final Map<String, String> SPARSE = Map.of("sparse", "true");
    private static final VolumeId SRC = VolumeId.of("pvc-src");
    private static final SnapshotId SNAP = SnapshotId.of("snapshot-1");

    private final ProcessRunner runner = new SystemProcessRunner();
    private final String pool = "ksn" + UUID.randomUUID().toString().substring(0, 8);

    @TempDir
    Path work;

    private String loopDevice;
    private ZfsVolumeBackend zfs;

    @BeforeAll
    static void onlyInTheKernelVmWithZfs() {
        assertThat(System.getenv("PILLAR_KERNEL_VM")).as("PILLAR_KERNEL_VM: use dev/kernel-it").isEqualTo("1");
        assertThat(Path.of("/sys/module/zfs")).as("the zfs module").isDirectory();
    }

    @BeforeEach
    void poolOnALoopDevice() throws Exception {
        Path image = work.resolve("pool.img");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength(512 * MIB);
        }
        loopDevice = sh("losetup", "-f", "--show", image.toString()).strip();
        sh("zpool", "create", "-f", "-m", "none", "-o", "cachefile=none", pool, loopDevice);
        sh("zfs", "create", "-o", "mountpoint=none", pool + "/k8s");
        zfs = new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, pool, "k8s"), runner,
                Path.of("/dev"), Path.of("/sys"), Path.of("/lib/udev/zvol_id"), DEADLINE, Duration.ofSeconds(10));
    }

    @AfterEach
    void destroyThePool() {
        if (loopDevice != null) {
            quietly("zpool", "destroy", "-f", pool);
            quietly("losetup", "-d", loopDevice);
        }
    }

    @Test
    void restoresReadTheSnapshotTimeDataAndDeletingTheSnapshotFirstLeavesNothing() throws Exception {
        BackendVolume src = zfs.create(SRC, SIZE, SPARSE);
        String atSnapshot = DeviceData.write(src, 1);
        zfs.snapshot(SNAP, SRC);
        String later = DeviceData.write(src, 2);
        assertThat(later).isNotEqualTo(atSnapshot);

        BackendVolume linked = restore(VolumeId.of("pvc-linked"), SIZE, Mode.LINKED);
        BackendVolume independent = restore(VolumeId.of("pvc-copy"), ByteSize.ofMiB(32), Mode.INDEPENDENT);

        assertThat(DeviceData.hash(linked, SIZE.bytes())).isEqualTo(atSnapshot);
        assertThat(DeviceData.hash(independent, SIZE.bytes())).isEqualTo(atSnapshot);
        assertThat(Long.parseLong(Files.readString(Path.of("/sys/class/block", independent.device().getFileName().toString(), "size"))
                .strip()) * 512).isEqualTo(32 * MIB);
        assertThat(DeviceData.hash(src, SIZE.bytes())).isEqualTo(later);
        assertThat(sh("zfs", "get", "-H", "-o", "value", "origin", pool + "/k8s/pvc-copy").strip()).isEqualTo("-");

        zfs.deleteSnapshot(SNAP);
        assertThat(zfs.findSnapshot(SNAP)).isEmpty();
        assertThat(DeviceData.hash(linked, SIZE.bytes())).as("the deferred snapshot still holds the linked restore").isEqualTo(atSnapshot);
        zfs.delete(VolumeId.of("pvc-linked"));
        zfs.delete(VolumeId.of("pvc-copy"));
        zfs.delete(SRC);
        assertOnlyTheParentLeft();
    }

    @Test
    void aCloneReadsTheSourceAndThenWritesStayOnTheirSide() throws Exception {
        BackendVolume src = zfs.create(SRC, SIZE, SPARSE);
        String before = DeviceData.write(src, 3);

        BackendVolume linked = zfs.create(VolumeId.of("pvc-clone"), SIZE, SPARSE, NonZeroingPool.REFUSE,
                new VolumeSource.FromVolume(SRC, Mode.LINKED));
        BackendVolume independent = zfs.create(VolumeId.of("pvc-twin"), SIZE, SPARSE, NonZeroingPool.REFUSE,
                new VolumeSource.FromVolume(SRC, Mode.INDEPENDENT));
        assertThat(DeviceData.hash(linked, SIZE.bytes())).isEqualTo(before);
        assertThat(DeviceData.hash(independent, SIZE.bytes())).isEqualTo(before);

        String cloneData = DeviceData.write(linked, 4);
        assertThat(DeviceData.hash(src, SIZE.bytes())).isEqualTo(before);
        String srcData = DeviceData.write(src, 5);
        assertThat(DeviceData.hash(linked, SIZE.bytes())).isEqualTo(cloneData);
        assertThat(DeviceData.hash(independent, SIZE.bytes())).isEqualTo(before);
        assertThat(srcData).isNotEqualTo(before);

        // the source before its clones: hidden while the linked clone depends on it
        zfs.delete(SRC);
        assertThat(zfs.find(SRC)).isEmpty();
        assertThat(DeviceData.hash(linked, SIZE.bytes())).isEqualTo(cloneData);
        zfs.delete(VolumeId.of("pvc-clone"));
        zfs.delete(VolumeId.of("pvc-twin"));
        assertOnlyTheParentLeft();
    }

    @Test
    void deletingTheSourceBeforeItsSnapshotKeepsTheSnapshotRestorable() throws Exception {
        BackendVolume src = zfs.create(SRC, SIZE, SPARSE);
        String atSnapshot = DeviceData.write(src, 6);
        zfs.snapshot(SNAP, SRC);
        BackendVolume linked = restore(VolumeId.of("pvc-linked"), SIZE, Mode.LINKED);

        zfs.delete(SRC);
        assertThat(zfs.find(SRC)).isEmpty();
        assertThat(zfs.list()).extracting(BackendVolume::id).containsExactly(VolumeId.of("pvc-linked"));
        BackendVolume again = restore(VolumeId.of("pvc-again"), SIZE, Mode.INDEPENDENT);
        assertThat(DeviceData.hash(again, SIZE.bytes())).isEqualTo(atSnapshot);
        assertThat(DeviceData.hash(linked, SIZE.bytes())).isEqualTo(atSnapshot);

        // then the clone before the snapshot, the snapshot last
        zfs.delete(VolumeId.of("pvc-linked"));
        zfs.delete(VolumeId.of("pvc-again"));
        zfs.deleteSnapshot(SNAP);
        assertOnlyTheParentLeft();
    }

    private BackendVolume restore(VolumeId id, ByteSize size, Mode mode) {
        return zfs.create(id, size, SPARSE, NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, mode));
    }

    private void assertOnlyTheParentLeft() {
        assertThat(sh("zfs", "list", "-H", "-o", "name", "-t", "all", "-r", pool + "/k8s").strip().lines().toList())
                .containsExactly(pool + "/k8s");
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
