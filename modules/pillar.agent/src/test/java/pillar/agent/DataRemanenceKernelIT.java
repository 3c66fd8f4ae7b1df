package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.lvm.LvmBackend;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.zfs.ZfsVolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * No data remanence on the real kernel, for every backend: a volume filled with a pattern is deleted,
 * one of the same size is created in the same place (the same extents for linear LVM, checked with
 * {@code seg_pe_ranges}; the same thin pool; the same ZFS pool), and its whole raw device reads only
 * zeroes. Each LVM case first shows the danger with bare LVM commands (a bare lvcreate on a removed
 * LV's extents shows its bytes; a thin pool without zeroing hands out chunks with a deleted volume's
 * bytes), so the test fails if the driver stops zeroing. A thin pool with zeroing off is refused, and
 * created on when the create accepts it.
 *
 * <p>Runs only inside the qemu VM ({@code dev/kernel-it}); anywhere else it fails on purpose.
 */
class DataRemanenceKernelIT {
    private static final long SIZE = 32L << 20; // lean: the tier runs under TCG
    private static final long THIN_CHUNK = 64L << 10; // lvcreate's default chunk size for a small pool
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();

    private final String name = "rem" + UUID.randomUUID().toString().substring(0, 8);

    @TempDir
    Path work;

    private Path loop;
    private boolean zpool;

    @BeforeAll
    static void onlyInTheKernelVm() {
        VmBed.requireVm(false);
    }

    @AfterEach
    void removeEverything() {
        if (loop != null) {
            VmBed.cleanUp(() -> VmBed.run(zpool ? new String[] { "zpool", "destroy", "-f", name } : new String[] { "vgremove", "-f", name }),
                    () -> VmBed.run("losetup", "-d", loop.toString())).forEach(p -> System.out.println("[cleanup] " + p));
        }
    }

    @Test
    void aLinearVolumeOnTheExtentsOfADeletedOneReadsOnlyZeroes() throws IOException {
        loop = VmBed.loopDevice(work, name, 128L << 20);
        VmBed.run("pvcreate", "-q", loop.toString());
        VmBed.run("vgcreate", "-q", name, loop.toString());
        // the kernel fact the driver guards against (and FakeLvm models): lvcreate --zero y clears 4 KiB only
        VmBed.run("lvcreate", "-q", "-y", "--wipesignatures", "y", "--zero", "y", "-n", "bare", "-L", SIZE + "b", name);
        fill(Path.of("/dev", name, "bare"));
        String bareExtents = extents("bare");
        VmBed.run("lvremove", "-f", name + "/bare");
        VmBed.run("lvcreate", "-q", "-y", "--wipesignatures", "y", "--zero", "y", "-n", "bare2", "-L", SIZE + "b", name);
        assertThat(extents("bare2")).isEqualTo(bareExtents);
        assertThat(nonZeroMiB(Path.of("/dev", name, "bare2"))).as("bare LVM leaves a removed LV's bytes").isPositive();
        VmBed.run("lvremove", "-f", name + "/bare2");

        VolumeBackend linear = lvm(BackendKind.BACKEND_KIND_LVM_LINEAR, "");
        BackendVolume old = linear.create(VolumeId.of("pvc-old"), ByteSize.of(SIZE), Map.of());
        fill(old.device());
        String oldExtents = extents("pvc-old");
        long start = System.nanoTime();
        pillar.agent.backend.BackendAssertions.deleted(linear, VolumeId.of("pvc-old"));
        System.out.printf("[timing] linear delete of %d MiB with zeroing: %d ms%n", SIZE >> 20, (System.nanoTime() - start) / 1_000_000);
        BackendVolume fresh = linear.create(VolumeId.of("pvc-new"), ByteSize.of(SIZE), Map.of());

        assertThat(extents("pvc-new")).isEqualTo(oldExtents);
        assertThat(nonZeroMiB(fresh.device())).isZero();
    }

    @Test
    void aThinVolumeReadsOnlyZeroesAndAPoolWithoutZeroingIsRefusedUnlessAccepted() throws IOException {
        loop = VmBed.loopDevice(work, name, 128L << 20);
        VmBed.volumeGroup(name, loop, "32m");
        LvmBackend thin = lvm(BackendKind.BACKEND_KIND_LVM_THIN, "pool0");
        long size = 28L << 20; // most of the pool: a new volume's chunks must be the deleted one's

        fill(thin.create(VolumeId.of("pvc-old"), ByteSize.of(size), Map.of()).device());
        thin.delete(VolumeId.of("pvc-old"));
        BackendVolume fresh = thin.create(VolumeId.of("pvc-new"), ByteSize.of(size), Map.of());
        provisionEveryChunk(fresh.device(), size);
        assertThat(nonZeroMiB(fresh.device())).isZero();
        thin.delete(VolumeId.of("pvc-new"));

        VmBed.run("lvchange", "--zero", "n", name + "/pool0");
        assertThat(thin.problem()).hasValueSatisfying(p -> assertThat(p.reason()).isEqualTo("ThinPoolNotZeroing"));
        assertThatThrownBy(() -> thin.create(VolumeId.of("pvc-refused"), ByteSize.of(size), Map.of()))
                .isInstanceOfSatisfying(BackendException.class, e -> assertThat(e.kind()).isEqualTo(BackendException.Kind.UNAVAILABLE))
                .hasMessageContaining("thin pool " + name + "/pool0 does not zero new chunks");
        assertThat(thin.list()).isEmpty();
        // what the refusal prevents: without zeroing, new chunks hold a deleted volume's bytes
        fill(thin.create(VolumeId.of("pvc-a"), ByteSize.of(size), Map.of(), NonZeroingPool.ACCEPT).device());
        thin.delete(VolumeId.of("pvc-a"));
        BackendVolume accepted = thin.create(VolumeId.of("pvc-b"), ByteSize.of(size), Map.of(), NonZeroingPool.ACCEPT);
        provisionEveryChunk(accepted.device(), size);
        assertThat(nonZeroMiB(accepted.device())).as("a pool without zeroing shows old bytes").isPositive();
    }

    @Test
    void aZvolOnThePoolOfADeletedOneReadsOnlyZeroes() throws IOException {
        VmBed.requireVm(true);
        loop = VmBed.loopDevice(work, name, 128L << 20);
        VmBed.zpool(name, loop);
        zpool = true;
        VolumeBackend zfs = new ZfsVolumeBackend(new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, name, "k8s"), RUNNER,
                Path.of("/dev"), Path.of("/sys"), Path.of("/lib/udev/zvol_id"), DEADLINE, Duration.ofSeconds(10));

        fill(zfs.create(VolumeId.of("pvc-old"), ByteSize.of(SIZE), Map.of()).device());
        zfs.delete(VolumeId.of("pvc-old"));
        BackendVolume fresh = zfs.create(VolumeId.of("pvc-new"), ByteSize.of(SIZE), Map.of());

        assertThat(nonZeroMiB(fresh.device())).isZero();
    }

    private LvmBackend lvm(BackendKind kind, String pool) {
        return LvmBackend.of(new BackendConfig("lvm", kind, name, pool), RUNNER, Path.of("/dev"), Path.of("/sys"), DEADLINE,
                Duration.ofSeconds(10));
    }

    /** The LV's physical extents, e.g. {@code /dev/loop0:0-15}. */
    private String extents(String lv) {
        return VmBed.run("lvs", "--noheadings", "-o", "seg_pe_ranges", name + "/" + lv).strip();
    }

    private static long size(Path device) {
        return Long.parseLong(VmBed.run("blockdev", "--getsize64", device.toString()).strip());
    }

    /** Writes a pattern over the whole device (one random MiB, each copy stamped with its index) and flushes it. */
    private static void fill(Path device) throws IOException {
        byte[] mib = new byte[1 << 20];
        new Random(7).nextBytes(mib);
        long size = size(device);
        try (FileChannel file = FileChannel.open(device, StandardOpenOption.WRITE)) {
            for (long at = 0; at < size; at += mib.length) {
                ByteBuffer.wrap(mib).putLong(0, at | 1); // never zero
                ByteBuffer buffer = ByteBuffer.wrap(mib, 0, (int) Math.min(mib.length, size - at));
                while (buffer.hasRemaining()) {
                    file.write(buffer, at + buffer.position());
                }
            }
            file.force(true);
        }
    }

    /** Writes 4 KiB of zeroes at the start of each thin chunk: each write provisions a chunk of the pool. */
    private static void provisionEveryChunk(Path device, long size) throws IOException {
        try (FileChannel file = FileChannel.open(device, StandardOpenOption.WRITE)) {
            for (long at = 0; at < size; at += THIN_CHUNK) {
                file.write(ByteBuffer.allocate(4096), at);
            }
            file.force(true);
        }
    }

    /** How many MiB of the whole raw device hold a byte that is not zero. */
    private static long nonZeroMiB(Path device) throws IOException {
        byte[] zeroes = new byte[1 << 20];
        long count = 0;
        long read = 0;
        try (FileChannel file = FileChannel.open(device, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(zeroes.length);
            int n;
            while ((n = file.read(buffer)) > 0) {
                if (Arrays.mismatch(buffer.array(), 0, n, zeroes, 0, n) >= 0) {
                    count++;
                }
                read += n;
                buffer.clear();
            }
        }
        assertThat(read).as("the whole device was read").isEqualTo(size(device));
        return count;
    }
}
