package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.PoolHealth;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * ZfsVolumeBackend against real OpenZFS (the zfs-dkms module in the VM): a pool on a loop device,
 * sparse and reserved zvols created with their volblocksize and compression, found, grown (the kernel
 * sees the new size at once), refused when they would shrink or clash, listed, counted in the
 * capacity, refused destruction while open, destroyed; foreign zvols, missing parents and pools
 * recognised. Prints each backend call's time next to the bare zfs command's.
 *
 * <p>Device nodes: the VM has no udev, so no {@code /dev/zvol/<dataset>} link ever appears (udev's
 * rule makes it by running {@code zvol_id}). The kernel's devtmpfs makes {@code /dev/zdN} by itself,
 * shortly after {@code zfs create} returns, and the number is not stable (a destroyed zvol's number
 * is reused). The backend therefore finds a zvol by asking {@code /lib/udev/zvol_id} about each
 * {@code /sys/block/zd*} once per device instance ({@code diskseq}), and uses the udev link where it
 * exists (a normal host). Proven here: the link is absent, the node found is the zvol's (data written
 * through it is the zvol's), and a reused number, which has a new diskseq, is followed.
 */
class ZfsBackendKernelIT {
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final long MIB = 1L << 20;

    private final ProcessRunner runner = new SystemProcessRunner();
    private final String pool = "kit" + UUID.randomUUID().toString().substring(0, 8);
    private final List<String> timings = new ArrayList<>();

    @TempDir
    Path work;

    private String loopDevice;
    private ZfsVolumeBackend zfs;

    @BeforeAll
    static void onlyInTheKernelVmWithZfs() {
        assertThat(System.getenv("PILLAR_KERNEL_VM"))
                .as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it")
                .isEqualTo("1");
        assertThat(Path.of("/sys/module/zfs")).as("the zfs module (dev/vm/setup builds it with dkms)").isDirectory();
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
        zfs = backend(pool, "k8s");
    }

    private ZfsVolumeBackend backend(String poolName, String parent) {
        return new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, poolName, parent), runner,
                Path.of("/dev"), Path.of("/sys"), Path.of("/lib/udev/zvol_id"), DEADLINE, Duration.ofSeconds(10));
    }

    @AfterEach
    void destroyThePool() {
        timings.forEach(line -> System.out.println("[timing] " + line));
        if (loopDevice != null) {
            quietly("zpool", "destroy", "-f", pool);
            quietly("losetup", "-d", loopDevice);
        }
    }

    @Test
    void sparseZvolLifecycle() throws Exception {
        VolumeId id = VolumeId.of("pvc-sparse");
        Map<String, String> sparse = Map.of("sparse", "true");

        BackendVolume created = timed("create sparse 64 MiB", () -> zfs.create(id, ByteSize.ofMiB(64), sparse));
        assertThat(created.size()).isEqualTo(ByteSize.ofMiB(64));
        assertThat(created.device().toString()).matches("/dev/zd[0-9]+");
        assertThat(Path.of("/dev/zvol")).as("no udev, no /dev/zvol links").doesNotExist();
        assertThat(kernelSize(created.device())).isEqualTo(64 * MIB);
        assertThat(properties(pool + "/k8s/pvc-sparse", "volblocksize,refreservation,volmode,io.pillar-csi:managed"))
                .isEqualTo("volblocksize=16384 refreservation=0 volmode=dev io.pillar-csi:managed=embedded");

        assertThat(timed("create sparse again", () -> zfs.create(id, ByteSize.ofMiB(64), sparse))).isEqualTo(created);
        assertFails(() -> zfs.create(id, ByteSize.ofMiB(96), sparse), Kind.CONFLICT, "already exists with 64MiB");
        assertFails(() -> zfs.create(id, ByteSize.ofMiB(64), Map.of("sparse", "true", "volblocksize", "8K")), Kind.CONFLICT,
                "volblocksize 16384");
        assertThat(timed("find", () -> zfs.find(id))).contains(created);

        // the node found is the zvol's own: what is written through it is what zfs holds
        writeMarker(created.device(), "pillar-csi zvol marker");
        ByteSize grownSize = timed("expand sparse to 100 MB (rounds to 16K)", () -> zfs.expand(id, ByteSize.of(100_000_000)));
        assertThat(grownSize).isEqualTo(ByteSize.of(100_007_936)); // 6104 blocks of 16K
        BackendVolume grown = new BackendVolume(id, grownSize, created.device());
        assertThat(zfs.find(id)).contains(grown);
        assertThat(kernelSize(grown.device())).isEqualTo(100_007_936);
        assertThat(readMarker(grown.device())).isEqualTo("pillar-csi zvol marker");
        assertThat(zfs.expand(id, ByteSize.of(100_000_000))).isEqualTo(grownSize);
        assertFails(() -> zfs.expand(id, ByteSize.ofMiB(64)), Kind.OUT_OF_RANGE, "never shrink");
        assertThat(kernelSize(grown.device())).isEqualTo(100_007_936);

        assertThat(timed("list", zfs::list)).containsExactly(grown);
        try (FileChannel holder = FileChannel.open(grown.device(), StandardOpenOption.READ)) {
            assertThat(holder.isOpen()).isTrue(); // as an enabled nvmet namespace holds an exported zvol
            assertFails(() -> zfs.delete(id), Kind.FAILED, "unexport it first");
        }
        timed("delete sparse", () -> {
            zfs.delete(id);
            return null;
        });
        awaitGone(grown.device());
        zfs.delete(id);
        assertThat(zfs.find(id)).isEmpty();
        assertThat(zfs.list()).isEmpty();

        bare("bare zfs create -V 64M -s", "zfs", "create", "-V", "64M", "-s", "-b", "16K", pool + "/k8s/bare");
        bare("bare zfs set volsize", "zfs", "set", "volsize=128M", pool + "/k8s/bare");
        bare("bare zfs get", "zfs", "get", "-Hp", "-o", "name,property,value", "volsize,volblocksize", pool + "/k8s/bare");
        bare("bare zfs destroy", "zfs", "destroy", pool + "/k8s/bare");
    }

    @Test
    void aReservedZvolIsCountedInTheCapacityWithItsMetadata() {
        timed("capacity", zfs::capacity);
        VolumeBackend.Capacity empty = settledCapacity();
        VolumeId id = VolumeId.of("pvc-full");

        BackendVolume created = timed("create reserved 128 MiB, 8K, lz4", () -> zfs.create(id, ByteSize.ofMiB(128),
                Map.of("volblocksize", "8K", "compression", "lz4")));
        assertThat(kernelSize(created.device())).isEqualTo(128 * MIB);
        assertThat(properties(pool + "/k8s/pvc-full", "volblocksize,compression,volmode"))
                .isEqualTo("volblocksize=8192 compression=lz4 volmode=dev");
        long refreservation = Long.parseLong(properties(pool + "/k8s/pvc-full", "refreservation").split("=")[1]);
        assertThat(refreservation).as("the reservation includes metadata").isGreaterThan(128 * MIB);

        VolumeBackend.Capacity after = settledCapacity();
        assertThat(empty.available().bytes() - after.available().bytes()).isBetween(refreservation, refreservation + MIB);
        assertThat(after.total().bytes()).as("used + available, give or take the new zvol's own metadata")
                .isBetween(empty.total().bytes() - MIB, empty.total().bytes() + MIB);
        long total = after.total().bytes();
        assertFails(() -> zfs.create(VolumeId.of("pvc-huge"), ByteSize.of(total + 64 * MIB), Map.of()), Kind.OUT_OF_RANGE,
                "larger than");
        // fits the parent, not what the reservation left of it
        assertFails(() -> zfs.create(VolumeId.of("pvc-big"), ByteSize.of(total - 16 * MIB), Map.of()), Kind.NO_SPACE, "available");
        assertThat(zfs.create(VolumeId.of("pvc-over"), ByteSize.ofGiB(2), Map.of("sparse", "true")).size())
                .as("sparse may overcommit").isEqualTo(ByteSize.ofGiB(2));
        assertFails(() -> zfs.expand(id, ByteSize.of(2 * total)), Kind.NO_SPACE, "no room to grow");
        assertThat(kernelSize(created.device())).isEqualTo(128 * MIB);

        timed("delete reserved", () -> {
            zfs.delete(id);
            return null;
        });
        zfs.delete(VolumeId.of("pvc-over"));
        assertThat(settledCapacity().available().bytes()).isBetween(empty.available().bytes() - MIB, empty.available().bytes() + MIB);
    }

    /**
     * The backend's capacity once the pool has written out its transaction groups and the figure holds still: what
     * ZFS reports lags its changes (a fresh pool's own metadata, a destroy's asynchronous frees), by some hundred KiB
     * under load (a 6.1 gate run read 445 KiB less of a reservation than it had made).
     */
    private VolumeBackend.Capacity settledCapacity() {
        VolumeBackend.Capacity last = null;
        for (int i = 0; i < 10; i++) {
            sh("zpool", "sync", pool);
            VolumeBackend.Capacity now = zfs.capacity();
            if (now.equals(last)) {
                return now;
            }
            last = now;
        }
        return last;
    }

    @Test
    void aReusedDeviceNumberIsFollowed() throws Exception {
        BackendVolume a = zfs.create(VolumeId.of("pvc-a"), ByteSize.ofMiB(16), Map.of("sparse", "true"));
        BackendVolume b = zfs.create(VolumeId.of("pvc-b"), ByteSize.ofMiB(16), Map.of("sparse", "true"));
        writeMarker(b.device(), "I am pvc-b");
        String seqOfA = diskseq(a.device());
        zfs.delete(VolumeId.of("pvc-a"));
        awaitGone(a.device());
        BackendVolume c = zfs.create(VolumeId.of("pvc-c"), ByteSize.ofMiB(16), Map.of("sparse", "true"));
        assertThat(c.device()).as("the freed number is reused").isEqualTo(a.device());
        assertThat(diskseq(c.device())).as("the kernel's diskseq tells the two instances of the number apart (ZvolDevices relies on it)")
                .matches("[0-9]+").isNotEqualTo(seqOfA);
        assertThat(zfs.find(VolumeId.of("pvc-b")).orElseThrow().device()).isEqualTo(b.device());
        assertThat(readMarker(zfs.find(VolumeId.of("pvc-b")).orElseThrow().device())).isEqualTo("I am pvc-b");
        assertThat(zfs.list()).extracting(BackendVolume::device).containsExactlyInAnyOrder(b.device(), c.device());
        VolumeId[] ids = {VolumeId.of("pvc-a"), VolumeId.of("pvc-b"), VolumeId.of("pvc-c")};
        assertThat(timed("findAll of three", () -> zfs.findAll(List.of(ids)))).as("the deleted one left out, each as find has it")
                .isEqualTo(Map.of(ids[1], zfs.find(ids[1]).orElseThrow(), ids[2], c));
    }

    private static String diskseq(Path device) throws IOException {
        return Files.readString(Path.of("/sys/block").resolve(device.getFileName().toString()).resolve("diskseq")).strip();
    }

    @Test
    void foreignZvolsMissingParentsAndPoolsAreRecognised() {
        sh("zfs", "create", "-V", "16M", "-s", pool + "/k8s/pvc-foreign");
        VolumeId id = VolumeId.of("pvc-foreign");
        assertFails(() -> zfs.create(id, ByteSize.ofMiB(16), Map.of("sparse", "true")), Kind.CONFLICT, "not a zvol of this installation");
        assertThat(zfs.find(id)).isEmpty();
        assertThat(zfs.list()).isEmpty();
        assertFails(() -> zfs.delete(id), Kind.FAILED, "refusing to destroy");
        // this installation's mark inherited from the parent (source 'inherited from ...') is not ownership
        sh("zfs", "set", "io.pillar-csi:managed=embedded", pool + "/k8s");
        sh("zfs", "create", "-V", "16M", "-s", pool + "/k8s/pvc-inherits");
        assertThat(sh("zfs", "get", "-H", "-o", "value,source", "io.pillar-csi:managed", pool + "/k8s/pvc-inherits"))
                .startsWith("embedded\tinherited from " + pool + "/k8s");
        assertThat(zfs.find(VolumeId.of("pvc-inherits"))).isEmpty();
        assertThat(zfs.list()).isEmpty();
        assertThat(zfs.findAll(List.of(id, VolumeId.of("pvc-inherits")))).isEmpty();
        assertFails(() -> zfs.delete(VolumeId.of("pvc-inherits")), Kind.FAILED, "refusing to destroy");
        sh("zfs", "inherit", "io.pillar-csi:managed", pool + "/k8s");
        assertFails(() -> zfs.expand(VolumeId.of("pvc-none"), ByteSize.ofMiB(4)), Kind.NOT_FOUND, "does not exist");
        zfs.delete(VolumeId.of("pvc-none"));

        ZfsVolumeBackend noParent = backend(pool, "nope");
        assertFails(noParent::capacity, Kind.UNAVAILABLE, "is not available");
        assertFails(() -> noParent.create(VolumeId.of("pvc-x"), ByteSize.ofMiB(4), Map.of()), Kind.UNAVAILABLE, pool + "/nope");
        assertFails(noParent::list, Kind.UNAVAILABLE, "is the pool imported");
        assertThat(noParent.findAll(List.of(id))).as("as find: a missing parent holds no volume").isEmpty();
        ZfsVolumeBackend noPool = backend(pool + "x", "k8s");
        assertFails(noPool::capacity, Kind.UNAVAILABLE, "is not available");
        assertFails(() -> noPool.delete(VolumeId.of("pvc-x")), Kind.UNAVAILABLE, "is not available");
    }

    // --- helpers ---------------------------------------------------------------------------------------

    private long kernelSize(Path device) {
        return Long.parseLong(sh("blockdev", "--getsize64", device.toString()).strip());
    }

    private String properties(String dataset, String names) {
        return String.join(" ", sh("zfs", "get", "-Hp", "-o", "property,value", names, dataset).strip().lines()
                .map(line -> line.replace('\t', '=')).toList());
    }

    /** The same reading as ZfsHealthTest on the fake: ONLINE, DEGRADED once a mirror's device is offline, not imported. */
    @Test
    void thePoolsHealthIsReadFromZpool() throws Exception {
        assertThat(zfs.health()).isEqualTo(PoolHealth.zpool("ONLINE"));
        assertFails(backend("kitnone", "k8s")::health, Kind.UNAVAILABLE, "pool kitnone is not imported");

        String mirror = pool + "m";
        List<String> loops = new ArrayList<>();
        try {
            for (String name : List.of("m1.img", "m2.img")) {
                try (RandomAccessFile file = new RandomAccessFile(work.resolve(name).toFile(), "rw")) {
                    file.setLength(128 * MIB);
                }
                loops.add(sh("losetup", "-f", "--show", work.resolve(name).toString()).strip());
            }
            sh("zpool", "create", "-f", "-m", "none", "-o", "cachefile=none", mirror, "mirror", loops.get(0), loops.get(1));
            sh("zfs", "create", "-o", "mountpoint=none", mirror + "/k8s");
            ZfsVolumeBackend mirrored = backend(mirror, "k8s");
            assertThat(mirrored.health()).isEqualTo(PoolHealth.zpool("ONLINE"));
            sh("zpool", "offline", mirror, loops.get(1));
            assertThat(timed("health", mirrored::health)).isEqualTo(PoolHealth.zpool("DEGRADED"));
        } finally {
            quietly("zpool", "destroy", "-f", mirror);
            loops.forEach(loop -> quietly("losetup", "-d", loop));
        }
    }

    private static void writeMarker(Path device, String marker) throws Exception {
        try (RandomAccessFile raw = new RandomAccessFile(device.toFile(), "rw")) {
            raw.write(marker.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            raw.getFD().sync();
        }
    }

    private static String readMarker(Path device) throws Exception {
        // the device's page cache is bypassed: what zfs holds, not what this process wrote
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
        byte[] data = new byte[64];
        try (RandomAccessFile raw = new RandomAccessFile(device.toFile(), "r")) {
            raw.readFully(data);
        }
        return new String(data, java.nio.charset.StandardCharsets.US_ASCII).replaceAll("\u0000+$", "");
    }

    private static void awaitGone(Path device) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (Files.exists(device)) {
            assertThat(System.nanoTime()).as("%s still exists after destroy", device).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private <T> T timed(String what, Supplier<T> call) {
        long start = System.nanoTime();
        T result = call.get();
        timings.add(String.format("%-40s %6d ms", what, (System.nanoTime() - start) / 1_000_000));
        return result;
    }

    private void bare(String what, String... argv) {
        timed(what, () -> sh(argv));
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
