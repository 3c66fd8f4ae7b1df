package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
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

import pillar.agent.backend.BackendAssertions;
import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.PoolHealth;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * LvmBackend against real LVM and device-mapper: a volume group on a loop device with a thin
 * pool, linear and thin volumes created, found, grown (the kernel sees the new size), refused when
 * they would shrink or clash with a foreign LV, activated after a deactivation, refused removal
 * while open, and removed. Prints each backend call's time next to the bare LVM command's.
 *
 * <p>Runs only inside the qemu VM ({@code dev/kernel-it}); anywhere else it fails on purpose, so a
 * misconfigured CI cannot report it as passed.
 */
class LvmBackendKernelIT {
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final Path DEV = Path.of("/dev");

    private final ProcessRunner runner = new SystemProcessRunner();
    private final String vg = "kit" + UUID.randomUUID().toString().substring(0, 8);
    private final List<String> timings = new ArrayList<>();

    @TempDir
    Path work;

    private String loopDevice;
    private LvmBackend linear;
    private LvmBackend thin;

    @BeforeAll
    static void onlyInTheKernelVm() {
        assertThat(System.getenv("PILLAR_KERNEL_VM"))
                .as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it")
                .isEqualTo("1");
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
        sh("lvcreate", "-y", "--type", "thin-pool", "-L", "128m", "-n", "pool0", vg);
        linear = LvmBackend.of(new BackendConfig("lvm", BackendKind.BACKEND_KIND_LVM_LINEAR, vg, ""), runner, DEV, Path.of("/sys"), DEADLINE,
                Duration.ofSeconds(10));
        // over-provisioning ratio 16: 2 GiB of thin volumes on the 128 MiB pool, as the overcommit test grows one to
        thin = LvmBackend.of(new BackendConfig("lvm-thin", BackendKind.BACKEND_KIND_LVM_THIN, vg, "pool0", BigDecimal.valueOf(16)),
                runner, DEV, Path.of("/sys"), DEADLINE, Duration.ofSeconds(10));
    }

    @AfterEach
    void removeEverything() {
        timings.forEach(line -> System.out.println("[timing] " + line));
        if (loopDevice != null) {
            quietly("vgremove", "-f", vg);
            quietly("losetup", "-d", loopDevice);
        }
    }

    @Test
    void linearVolumeLifecycle() throws Exception {
        VolumeId id = VolumeId.of("pvc-linear");

        BackendVolume created = timed("create linear 10 MiB", () -> linear.create(id, ByteSize.ofMiB(10), Map.of()));
        assertThat(created.size()).isEqualTo(ByteSize.ofMiB(12)); // three 4 MiB extents
        assertThat(created.device()).isEqualTo(Path.of("/dev", vg, "pvc-linear"));
        assertThat(kernelSize(created.device())).isEqualTo(12L << 20);

        assertThat(timed("create linear again", () -> linear.create(id, ByteSize.ofMiB(10), Map.of()))).isEqualTo(created);
        assertFails(() -> linear.create(id, ByteSize.ofMiB(20), Map.of()), Kind.CONFLICT, "already exists with 12MiB");
        assertThat(timed("find", () -> linear.find(id))).contains(created);

        ByteSize grownSize = timed("expand linear to 20 MiB", () -> linear.expand(id, ByteSize.ofMiB(20)));
        assertThat(grownSize).isEqualTo(ByteSize.ofMiB(20));
        BackendVolume grown = new BackendVolume(id, grownSize, created.device());
        assertThat(kernelSize(grown.device())).isEqualTo(20L << 20);
        assertThat(linear.expand(id, ByteSize.ofMiB(20))).isEqualTo(grownSize);
        assertFails(() -> linear.expand(id, ByteSize.ofMiB(8)), Kind.OUT_OF_RANGE, "never shrink");
        assertThat(kernelSize(grown.device())).isEqualTo(20L << 20);

        assertThat(timed("list", linear::list)).containsExactly(grown);
        VolumeBackend.Capacity capacity = timed("capacity linear", linear::capacity);
        assertThat(capacity.available().bytes()).isLessThan(capacity.total().bytes() - (128L << 20) - (20L << 20) + 1);

        try (FileChannel holder = FileChannel.open(grown.device(), StandardOpenOption.READ)) {
            assertThat(holder.isOpen()).isTrue(); // as an nvmet namespace holds an exported device
            assertFails(() -> linear.delete(id), Kind.FAILED, "unexport it first");
        }
        timed("delete linear", () -> {
            BackendAssertions.deleted(linear, id);
            return null;
        });
        assertThat(grown.device()).doesNotExist();
        linear.delete(id);
        assertThat(linear.find(id)).isEmpty();

        bare("bare lvcreate linear", "lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "-n", "bare", "-L", "12m", vg);
        bare("bare lvextend linear", "lvextend", "-L", "20m", vg + "/bare");
        bare("bare lvs", "lvs", "--reportformat", "json", "--units", "b", "--nosuffix", vg + "/bare");
        bare("bare lvremove", "lvremove", "-f", vg + "/bare");
    }

    @Test
    void thinVolumesOvercommitReportPoolUsageAndComeBackAfterDeactivation() throws Exception {
        VolumeId id = VolumeId.of("pvc-thin");

        BackendVolume created = timed("create thin 1 GiB", () -> thin.create(id, ByteSize.ofGiB(1), Map.of()));
        assertThat(created.size()).isEqualTo(ByteSize.ofGiB(1)); // eight times the pool: thin may overcommit up to its ratio
        assertThat(kernelSize(created.device())).isEqualTo(1L << 30);
        VolumeBackend.Capacity before = timed("capacity thin", thin::capacity);
        assertThat(before.total()).isEqualTo(ByteSize.ofMiB(128));

        try (FileChannel device = FileChannel.open(created.device(), StandardOpenOption.WRITE)) {
            ByteBuffer data = ByteBuffer.allocate(16 << 20);
            while (data.hasRemaining()) {
                device.write(data);
            }
            device.force(true);
        }
        VolumeBackend.Capacity after = thin.capacity();
        assertThat(before.available().bytes() - after.available().bytes()).isBetween(16L << 20, 17L << 20);

        ByteSize grownSize = timed("expand thin to 2 GiB", () -> thin.expand(id, ByteSize.ofGiB(2)));
        assertThat(grownSize).isEqualTo(ByteSize.ofGiB(2));
        BackendVolume grown = new BackendVolume(id, grownSize, created.device());
        assertThat(kernelSize(grown.device())).isEqualTo(2L << 30);

        sh("lvchange", "-an", vg + "/pvc-thin");
        assertThat(created.device()).doesNotExist();
        assertThat(timed("find (activates)", () -> thin.find(id))).contains(grown);
        assertThat(kernelSize(grown.device())).isEqualTo(2L << 30);

        sh("lvchange", "-an", vg + "/pvc-thin");
        assertThat(timed("findAll (activates)", () -> thin.findAll(List.of(id, VolumeId.of("pvc-none"))))).isEqualTo(Map.of(id, grown));
        assertThat(linear.find(id)).isEmpty(); // a linear backend on the same group does not own thin LVs
        assertThat(linear.findAll(List.of(id))).isEmpty();
        assertThat(thin.list()).containsExactly(grown);
        timed("delete thin", () -> {
            thin.delete(id);
            return null;
        });
        assertThat(thin.list()).isEmpty();

        // thin LVs are sized in whole extents too: an unaligned request rounds the same way every time
        VolumeId small = VolumeId.of("pvc-thin-small");
        BackendVolume unaligned = thin.create(small, ByteSize.ofMiB(10), Map.of());
        assertThat(unaligned.size()).isEqualTo(ByteSize.ofMiB(12));
        assertThat(kernelSize(unaligned.device())).isEqualTo(12L << 20);
        assertThat(thin.create(small, ByteSize.ofMiB(10), Map.of())).isEqualTo(unaligned);
        thin.delete(small);

        bare("bare lvcreate thin", "lvcreate", "-y", "--wipesignatures", "y", "-n", "bare", "-V", "1g", "--thinpool", "pool0", vg);
        bare("bare lvremove thin", "lvremove", "-f", vg + "/bare");
    }

    /**
     * At the default ratio 1 the 128 MiB pool takes 128 MiB of thin volumes, as real lvs reports their
     * virtual sizes (lv_size) and the pool's data size: a create, a snapshot or a growth beyond it is
     * NO_SPACE (RESOURCE_EXHAUSTED) and makes nothing, where LVM itself would overcommit (the bare lvcreate).
     */
    @Test
    void aThinPoolRefusesVolumesBeyondItsOverProvisioningRatio() {
        LvmBackend strict = LvmBackend.of(new BackendConfig("strict", BackendKind.BACKEND_KIND_LVM_THIN, vg, "pool0"),
                runner, DEV, Path.of("/sys"), DEADLINE, Duration.ofSeconds(10));
        VolumeId id = VolumeId.of("pvc-strict");
        strict.create(id, ByteSize.ofMiB(100), Map.of());
        assertThat(strict.capacity()).isEqualTo(new VolumeBackend.Capacity(ByteSize.ofMiB(128), ByteSize.ofMiB(28)));

        assertFails(() -> strict.create(VolumeId.of("pvc-beyond"), ByteSize.ofMiB(32), Map.of()), Kind.NO_SPACE, "thin pool " + vg
                + "/pool0 cannot take volume pvc-beyond of 32MiB: its thin volumes already add up to 100MiB of the 128MiB its"
                + " over-provisioning ratio 1 allows");
        assertThat(strict.exists(VolumeId.of("pvc-beyond"))).isFalse();
        assertFails(() -> strict.expand(id, ByteSize.ofMiB(132)), Kind.NO_SPACE, "grown from 100MiB to 132MiB");
        assertThat(kernelSize(Path.of("/dev", vg, "pvc-strict"))).isEqualTo(100L << 20);
        assertFails(() -> strict.snapshot(pillar.api.value.SnapshotId.of("snapshot-strict"), id), Kind.NO_SPACE, "snapshot snapshot-strict");
        assertThat(strict.listSnapshots()).isEmpty();
        assertThat(strict.create(VolumeId.of("pvc-fits"), ByteSize.ofMiB(28), Map.of()).size()).isEqualTo(ByteSize.ofMiB(28));
        assertThat(strict.capacity().available()).isEqualTo(ByteSize.ofMiB(0));

        bare("bare lvcreate thin beyond the pool", "lvcreate", "-y", "-n", "bare", "-V", "64m", "--thinpool", "pool0", vg);
        bare("bare lvremove thin", "lvremove", "-f", vg + "/bare");
        strict.delete(VolumeId.of("pvc-fits"));
        strict.delete(id);
    }

    @Test
    void foreignVolumesAndMissingGroupsAreRecognisedOnRealLvm() {
        sh("lvcreate", "-y", "-n", "pvc-foreign", "-L", "4m", vg);
        VolumeId id = VolumeId.of("pvc-foreign");

        assertFails(() -> linear.create(id, ByteSize.ofMiB(4), Map.of()), Kind.CONFLICT, "no tag pillar-csi");
        assertThat(linear.find(id)).isEmpty();
        assertThat(linear.list()).isEmpty();
        assertThat(linear.findAll(List.of(id))).isEmpty();
        assertFails(() -> linear.delete(id), Kind.FAILED, "refusing to remove");
        assertThat(Path.of("/dev", vg, "pvc-foreign")).exists();

        assertFails(() -> linear.create(VolumeId.of("pvc-big"), ByteSize.ofGiB(1), Map.of()), Kind.OUT_OF_RANGE, "larger than volume group");
        assertFails(() -> thin.expand(VolumeId.of("pvc-none"), ByteSize.ofMiB(4)), Kind.NOT_FOUND, "does not exist");
        thin.delete(VolumeId.of("pvc-none"));

        LvmBackend gone = LvmBackend.of(new BackendConfig("gone", BackendKind.BACKEND_KIND_LVM_LINEAR, vg + "x", ""),
                runner, DEV, Path.of("/sys"), DEADLINE, Duration.ofSeconds(5));
        assertFails(() -> gone.find(id), Kind.UNAVAILABLE, "not found");
        assertFails(() -> gone.findAll(List.of(id)), Kind.UNAVAILABLE, "not found");
        assertFails(gone::capacity, Kind.UNAVAILABLE, "not found");
        LvmBackend noPool = LvmBackend.of(new BackendConfig("nopool", BackendKind.BACKEND_KIND_LVM_THIN, vg, "pool9"),
                runner, DEV, Path.of("/sys"), DEADLINE, Duration.ofSeconds(5));
        assertFails(() -> noPool.create(VolumeId.of("pvc-x"), ByteSize.ofMiB(4), Map.of()), Kind.UNAVAILABLE, "pool9");
        assertFails(noPool::capacity, Kind.UNAVAILABLE, "pool9");
    }

    // --- helpers ---------------------------------------------------------------------------------------

    private long kernelSize(Path device) {
        return Long.parseLong(sh("blockdev", "--getsize64", device.toString()).strip());
    }

    private <T> T timed(String what, Supplier<T> call) {
        long start = System.nanoTime();
        T result = call.get();
        timings.add(String.format("%-28s %6d ms", what, (System.nanoTime() - start) / 1_000_000));
        return result;
    }

    /**
     * The same readings as LvmHealthTest on the fake: the thin pool's data and metadata usage from real
     * lvs (data grows with what a thin volume holds), and a volume's presence read without activating
     * it, false once an operator's lvremove took it.
     */
    @Test
    void theThinPoolsUsageAndAVolumesPresenceAreRead() throws Exception {
        PoolHealth.ThinUsage empty = thin.health().thin().orElseThrow();
        assertThat(empty.name()).isEqualTo(vg + "/pool0");
        assertThat(empty.dataPercent()).isBetween(0.0, 1.0);
        assertThat(empty.metadataPercent()).isGreaterThan(0.0).isLessThan(90.0);
        assertThat(linear.health()).isEqualTo(PoolHealth.NONE);

        VolumeId id = VolumeId.of("pvc-usage");
        BackendVolume volume = thin.create(id, ByteSize.ofMiB(64), Map.of());
        try (FileChannel device = FileChannel.open(volume.device(), StandardOpenOption.WRITE)) {
            ByteBuffer ones = ByteBuffer.allocate(1 << 20);
            java.util.Arrays.fill(ones.array(), (byte) 1);
            for (int i = 0; i < 32; i++) {
                device.write(ones.clear(), (long) i << 20);
            }
            device.force(true);
        }
        PoolHealth.ThinUsage used = timed("health", thin::health).thin().orElseThrow();
        assertThat(used.dataPercent()).as("32 MiB of a 128 MiB pool").isBetween(24.0, 27.0);
        sh("lvchange", "-an", vg + "/pvc-usage");
        assertThat(thin.exists(id)).isTrue();
        assertThat(Path.of("/dev", vg, "pvc-usage")).as("exists() does not activate").doesNotExist();
        sh("lvremove", "-f", vg + "/pvc-usage");
        assertThat(thin.exists(id)).isFalse();
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
