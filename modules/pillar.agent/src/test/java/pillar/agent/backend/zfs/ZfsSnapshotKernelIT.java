package pillar.agent.backend.zfs;

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

import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.DeviceData;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.VolumeSource.Mode;
import pillar.agent.backend.VolumeSource;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * Snapshots, restores and clones on real OpenZFS in the VM (the bed of {@link ZfsBackendKernelIT}: a
 * pool on a loop device), for both backends: data written through a zvol's device, or to a file in a
 * filesystem dataset's mount, is what a LINKED and an INDEPENDENT restore of its snapshot read (a larger
 * restore included, in its first source-size bytes; a dataset's with its larger refquota), a clone reads
 * the source's data and then writes on either side stay on that side, and every delete order leaves only
 * the parent in {@code zfs list -t all -r}. A dataset's restores and clones are mounted at their
 * volume's path below the parent's mountpoint, with {@code snapdir=hidden} and {@code sharenfs=off} set
 * locally: {@code .zfs} is not listed, though still reachable by its name.
 *
 * <p>Run: {@code dev/kernel-it --class ZfsSnapshotKernelIT}.
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
    private ZfsDatasetBackend datasets;
    /** The dataset parent's mountpoint: each dataset volume is mounted at {@code <nfsMount>/<id>}. */
    private Path nfsMount;

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
        nfsMount = work.resolve("nfs");
        sh("zfs", "create", "-o", "mountpoint=" + nfsMount, pool + "/nfs");
        datasets = new ZfsDatasetBackend(new BackendConfig("nfs", BackendKind.BACKEND_KIND_ZFS_DATASET, pool, "nfs"), runner,
                DEADLINE, Duration.ofSeconds(10), InstallationId.EMBEDDED);
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

    // --- filesystem datasets: the same scenarios, data in a file of the mount ------------------------------

    @Test
    void datasetRestoresReadTheSnapshotTimeFileAndDeletingTheSnapshotFirstLeavesNothing() throws Exception {
        BackendVolume src = datasets.create(SRC, SIZE, Map.of());
        assertThat(src.mountPath()).isEqualTo(nfsMount.resolve("pvc-src"));
        String atSnapshot = FileData.write(src, 4 * MIB, 1);
        datasets.snapshot(SNAP, SRC);
        String later = FileData.write(src, 4 * MIB, 2);
        assertThat(later).isNotEqualTo(atSnapshot);

        BackendVolume linked = restoreDataset(VolumeId.of("pvc-linked"), SIZE, Mode.LINKED);
        BackendVolume independent = restoreDataset(VolumeId.of("pvc-copy"), ByteSize.ofMiB(32), Mode.INDEPENDENT);

        for (BackendVolume made : List.of(linked, independent)) {
            String dataset = pool + "/nfs/" + made.id().value();
            assertThat(made.mountPath()).isEqualTo(nfsMount.resolve(made.id().value()));
            assertThat(property(dataset, "mounted")).isEqualTo("yes");
            assertThat(property(dataset, "mountpoint")).isEqualTo(made.mountPath().toString());
            // canmount: made noauto (no zfs mount of its own, which would run exportfs -ra: docs/nfs.md fact 11), set on once mounted
            assertThat(sh("zfs", "get", "-H", "-o", "value,source", "snapdir,sharenfs,canmount," + ZfsVolumeBackend.MANAGED_PROPERTY,
                    dataset).strip().lines().toList()).containsExactly("hidden	local", "off	local", "on	local",
                    InstallationId.EMBEDDED.value() + "	local");
            assertThat(FileData.hash(made)).as(dataset).isEqualTo(atSnapshot);
        }
        assertThat(property(pool + "/nfs/pvc-linked", "refquota")).isEqualTo(Long.toString(SIZE.bytes()));
        assertThat(property(pool + "/nfs/pvc-copy", "refquota")).isEqualTo(Long.toString(32 * MIB));
        assertThat(independent.size()).isEqualTo(ByteSize.ofMiB(32));
        assertThat(property(pool + "/nfs/pvc-copy", "origin")).isEqualTo("-");
        assertThat(property(pool + "/nfs/pvc-linked", "origin")).isEqualTo(pool + "/nfs/pvc-src@snapshot-1");
        assertThat(FileData.hash(src)).isEqualTo(later);
        // snapdir=hidden: .zfs is not listed to a client browsing the mount, yet reachable by its name
        try (var names = Files.list(src.mountPath())) {
            assertThat(names.map(p -> p.getFileName().toString()).toList()).containsExactly(FileData.NAME);
        }
        // (read its listing only: entering a snapshot's directory would mount it, which a later destroy must undo)
        try (var snapshots = Files.list(src.mountPath().resolve(".zfs/snapshot"))) {
            assertThat(snapshots.map(p -> p.getFileName().toString()).toList()).containsExactly("snapshot-1");
        }

        datasets.deleteSnapshot(SNAP);
        assertThat(datasets.findSnapshot(SNAP)).isEmpty();
        assertThat(FileData.hash(linked)).as("the deferred snapshot still holds the linked restore").isEqualTo(atSnapshot);
        datasets.delete(VolumeId.of("pvc-linked"));
        datasets.delete(VolumeId.of("pvc-copy"));
        datasets.delete(SRC);
        assertOnlyTheParentLeft("nfs");
    }

    @Test
    void aDatasetCloneReadsTheSourceAndThenWritesStayOnTheirSide() throws Exception {
        BackendVolume src = datasets.create(SRC, SIZE, Map.of());
        String before = FileData.write(src, 4 * MIB, 3);

        BackendVolume linked = datasets.create(VolumeId.of("pvc-clone"), SIZE, Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromVolume(SRC, Mode.LINKED));
        BackendVolume independent = datasets.create(VolumeId.of("pvc-twin"), SIZE, Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromVolume(SRC, Mode.INDEPENDENT));
        assertThat(FileData.hash(linked)).isEqualTo(before);
        assertThat(FileData.hash(independent)).isEqualTo(before);
        assertThat(datasets.listSnapshots()).isEmpty();

        String cloneData = FileData.write(linked, 4 * MIB, 4);
        assertThat(FileData.hash(src)).isEqualTo(before);
        String srcData = FileData.write(src, 4 * MIB, 5);
        assertThat(FileData.hash(linked)).isEqualTo(cloneData);
        assertThat(FileData.hash(independent)).isEqualTo(before);
        assertThat(srcData).isNotEqualTo(before);

        // the source before its clones: hidden while the linked clone depends on it
        datasets.delete(SRC);
        assertThat(datasets.find(SRC)).isEmpty();
        assertThat(datasets.list()).extracting(BackendVolume::id).containsExactlyInAnyOrder(VolumeId.of("pvc-clone"), VolumeId.of("pvc-twin"));
        assertThat(FileData.hash(linked)).isEqualTo(cloneData);
        datasets.delete(VolumeId.of("pvc-clone"));
        datasets.delete(VolumeId.of("pvc-twin"));
        assertOnlyTheParentLeft("nfs");
    }

    @Test
    void deletingTheSourceDatasetBeforeItsSnapshotKeepsTheSnapshotRestorable() throws Exception {
        BackendVolume src = datasets.create(SRC, SIZE, Map.of());
        String atSnapshot = FileData.write(src, 4 * MIB, 6);
        datasets.snapshot(SNAP, SRC);
        BackendVolume linked = restoreDataset(VolumeId.of("pvc-linked"), SIZE, Mode.LINKED);

        datasets.delete(SRC);
        assertThat(datasets.find(SRC)).isEmpty();
        // hidden unmounted: umount(8) before the destroy that found its snapshot, then zfs rename -u
        List<String> hidden = sh("zfs", "list", "-H", "-o", "name,mounted", "-t", "filesystem", "-r", pool + "/nfs").strip().lines()
                .filter(l -> l.contains(ZfsSnapshots.HIDDEN)).toList();
        assertThat(hidden).hasSize(1).allMatch(l -> l.endsWith("\tno"));
        assertThat(datasets.list()).extracting(BackendVolume::id).containsExactly(VolumeId.of("pvc-linked"));
        assertThat(datasets.findSnapshot(SNAP)).hasValueSatisfying(s -> assertThat(s.size()).isEqualTo(SIZE));
        BackendVolume again = restoreDataset(VolumeId.of("pvc-again"), SIZE, Mode.INDEPENDENT);
        assertThat(FileData.hash(again)).isEqualTo(atSnapshot);
        assertThat(FileData.hash(linked)).isEqualTo(atSnapshot);

        // then the clone before the snapshot, the snapshot last
        datasets.delete(VolumeId.of("pvc-linked"));
        datasets.delete(VolumeId.of("pvc-again"));
        datasets.deleteSnapshot(SNAP);
        assertOnlyTheParentLeft("nfs");
    }

    private BackendVolume restoreDataset(VolumeId id, ByteSize size, Mode mode) {
        return datasets.create(id, size, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, mode));
    }

    private String property(String dataset, String property) {
        return sh("zfs", "get", "-Hp", "-o", "value", property, dataset).strip();
    }

    private BackendVolume restore(VolumeId id, ByteSize size, Mode mode) {
        return zfs.create(id, size, SPARSE, NonZeroingPool.REFUSE, new VolumeSource.FromSnapshot(SNAP, mode));
    }

    private void assertOnlyTheParentLeft() {
        assertOnlyTheParentLeft("k8s");
    }

    private void assertOnlyTheParentLeft(String parent) {
        assertThat(sh("zfs", "list", "-H", "-o", "name", "-t", "all", "-r", pool + "/" + parent).strip().lines().toList())
                .containsExactly(pool + "/" + parent);
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
