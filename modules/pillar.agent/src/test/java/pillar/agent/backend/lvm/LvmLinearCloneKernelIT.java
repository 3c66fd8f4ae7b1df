package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendAssertions;
import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.BlockCopy;
import pillar.agent.backend.DeviceData;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.VolumeSource.Mode;
import pillar.agent.backend.VolumeSource;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * Clones on a real linear volume group in the VM (a loop device): the block copy with O_DIRECT reads
 * what was written through the source's device, a sparse source and a larger clone included; writes on
 * either side then stay there; the copy runs in the background, answering BUSY until it is whole; a retry
 * over an unfinished copy with junk in it, with or without a checkpoint tag, resumes there and ends exact
 * without zeroing, its source held against delete meanwhile by its tag; the tag swap is one lvchange; and deleting source or clone first leaves no LV.
 */
class LvmLinearCloneKernelIT {
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final ByteSize SIZE = ByteSize.ofMiB(32);
    private static final VolumeId SRC = VolumeId.of("pvc-src");
    private static final VolumeId CLONE = VolumeId.of("pvc-clone");
    private static final String INSTALLATION = LvmBackend.INSTALLATION_TAG + "embedded";
    private static final String COPYING = "pillar-csi.copying:volume/pvc-src/independent/33554432";
    private static final String CONTENT = "pillar-csi.content:volume/pvc-src/independent/33554432";

    private final ProcessRunner runner = new SystemProcessRunner();
    private final String vg = "klc" + UUID.randomUUID().toString().substring(0, 8);

    @TempDir
    Path work;

    private String loopDevice;
    private LvmBackend linear;

    @BeforeAll
    static void onlyInTheKernelVm() {
        assertThat(System.getenv("PILLAR_KERNEL_VM")).as("PILLAR_KERNEL_VM: use dev/kernel-it").isEqualTo("1");
        assertThat(Path.of("/dev/mapper/control")).as("device-mapper (module dm-mod)").exists();
    }

    @BeforeEach
    void linearVolumeGroupOnALoopDevice() throws Exception {
        Path image = work.resolve("pv.img");
        try (FileChannel file = FileChannel.open(image, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            file.truncate(0).position(256L << 20).write(ByteBuffer.wrap(new byte[1])); // 256 MiB, sparse
        }
        loopDevice = sh("losetup", "-f", "--show", image.toString()).strip();
        sh("pvcreate", "-y", loopDevice);
        sh("vgcreate", vg, loopDevice);
        linear = LvmBackend.of(new BackendConfig("lvm", BackendKind.BACKEND_KIND_LVM_LINEAR, vg, ""), runner, Path.of("/dev"),
                Path.of("/sys"), DEADLINE, Duration.ofSeconds(10));
    }

    @AfterEach
    void removeEverything() {
        if (linear != null) {
            linear.close();
        }
        if (loopDevice != null) {
            quietly("vgremove", "-f", vg);
            quietly("losetup", "-d", loopDevice);
        }
    }

    private BackendVolume cloneOf(VolumeId id, ByteSize size, Mode mode) {
        return linear.create(id, size, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(SRC, mode));
    }

    @Test
    void aCloneReadsTheSourceAndThenWritesStayOnTheirSideAndDeletingTheSourceFirstLeavesNothing() throws Exception {
        BackendVolume src = linear.create(SRC, SIZE, Map.of());
        String before = DeviceData.write(src, 1);

        BackendVolume clone = cloneOf(CLONE, SIZE, Mode.DEFAULT);

        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(before);
        assertThat(tags("pvc-clone")).containsExactlyInAnyOrder("pillar-csi", INSTALLATION,
                "pillar-csi.content:volume/pvc-src/independent/33554432");
        assertThat(tags("pvc-src")).as("the source's hold is taken off").containsExactlyInAnyOrder("pillar-csi", INSTALLATION);
        assertThat(cloneOf(CLONE, SIZE, Mode.INDEPENDENT)).isEqualTo(clone);
        assertFails(() -> cloneOf(VolumeId.of("pvc-linked"), SIZE, Mode.LINKED), Kind.INVALID, "cannot share blocks");
        String cloneData = DeviceData.write(clone, 2);
        assertThat(DeviceData.hash(src, SIZE.bytes())).isEqualTo(before);
        DeviceData.write(src, 3);
        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(cloneData);
        assertThat(linear.list()).extracting(BackendVolume::id).containsExactlyInAnyOrder(SRC, CLONE);

        BackendAssertions.deleted(linear, SRC);
        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(cloneData);
        BackendAssertions.deleted(linear, CLONE);
        assertNoLvLeft();
    }

    @Test
    void aSparseSourceAndALargerCloneAndDeletingTheCloneFirstLeavesNothing() throws Exception {
        BackendVolume src = linear.create(SRC, SIZE, Map.of());
        byte[] chunk = new byte[BlockCopy.CHUNK];
        java.util.Arrays.fill(chunk, (byte) 7);
        writeAt(src.device(), 5L * BlockCopy.CHUNK, chunk);
        byte[] expected = new byte[48 << 20]; // zeroes but chunk 5
        System.arraycopy(chunk, 0, expected, 5 * BlockCopy.CHUNK, chunk.length);
        String source = sha256(java.util.Arrays.copyOf(expected, (int) SIZE.bytes()));
        assertThat(DeviceData.hash(src, SIZE.bytes())).isEqualTo(source);

        BackendVolume clone = cloneOf(CLONE, ByteSize.ofMiB(48), Mode.DEFAULT);

        assertThat(clone.size()).isEqualTo(ByteSize.ofMiB(48));
        assertThat(Long.parseLong(sh("blockdev", "--getsize64", clone.device().toString()).strip())).isEqualTo(48L << 20);
        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(source);
        assertThat(DeviceData.hash(clone, 48L << 20)).as("zeroes past the source").isEqualTo(sha256(expected));
        BackendAssertions.deleted(linear, CLONE);
        assertThat(DeviceData.hash(src, SIZE.bytes())).isEqualTo(source);
        BackendAssertions.deleted(linear, SRC);
        assertNoLvLeft();
    }

    @Test
    void aRetryOverAnUnfinishedCopyWithJunkInItAndNoCheckpointCopiesItExactWithoutZeroing() throws Exception {
        BackendVolume src = linear.create(SRC, SIZE, Map.of());
        DeviceData.write(src, 4);
        sh("blkdiscard", "--zeroout", "--offset", "0", "--length", Long.toString(8L << 20), src.device().toString()); // a zero head
        String before = DeviceData.hash(src, SIZE.bytes());
        // as a crash before the first checkpoint leaves it: the unfinished tag and bytes where the source now has zeroes
        sh("lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "--addtag", "pillar-csi", "--addtag", INSTALLATION, "--addtag",
                COPYING, "-n", "pvc-clone", "-L", SIZE.bytes() + "b", vg);
        byte[] junk = new byte[BlockCopy.CHUNK];
        java.util.Arrays.fill(junk, (byte) 0x5a);
        writeAt(Path.of("/dev", vg, "pvc-clone"), 0, junk);
        assertFails(() -> linear.create(CLONE, SIZE, Map.of()), Kind.CONFLICT, "an unfinished copy of volume/pvc-src");
        sh("lvchange", "--addtag", "pillar-csi.cloning:pvc-clone", vg + "/pvc-src"); // the source's hold, as the crashed run left it
        assertFails(() -> linear.delete(SRC), Kind.BUSY, "it is the source of the clone pvc-clone, whose copy was interrupted");

        BackendVolume clone = cloneOf(CLONE, SIZE, Mode.DEFAULT);

        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(before);
        assertThat(tags("pvc-clone")).containsExactlyInAnyOrder("pillar-csi", INSTALLATION, CONTENT);
        assertThat(tags("pvc-src")).containsExactlyInAnyOrder("pillar-csi", INSTALLATION);
        BackendAssertions.deleted(linear, CLONE);
        BackendAssertions.deleted(linear, SRC);
        assertNoLvLeft();
    }

    @Test
    void aCopyResumedAtItsCheckpointTagEndsExactOverJunkPastIt() throws Exception {
        BackendVolume src = linear.create(SRC, SIZE, Map.of());
        String before = DeviceData.write(src, 5);
        sh("lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "--addtag", "pillar-csi", "--addtag", INSTALLATION, "--addtag",
                COPYING, "--addtag", "pillar-csi.copied:" + (16L << 20), "-n", "pvc-clone", "-L", SIZE.bytes() + "b", vg);
        Path target = Path.of("/dev", vg, "pvc-clone");
        // the first 16 MiB as the crashed run copied them, junk past them: what it wrote after its checkpoint
        sh("dd", "if=" + src.device(), "of=" + target, "bs=1M", "count=16", "iflag=direct", "oflag=direct", "status=none");
        byte[] junk = new byte[BlockCopy.CHUNK];
        java.util.Arrays.fill(junk, (byte) 0x6b);
        writeAt(target, 20L << 20, junk);
        // and a zero chunk in the source past the checkpoint, where the junk is
        sh("blkdiscard", "--zeroout", "--offset", Long.toString(20L << 20), "--length", Long.toString(1L << 20), src.device().toString());
        before = DeviceData.hash(src, SIZE.bytes());

        BackendVolume clone = cloneOf(CLONE, SIZE, Mode.DEFAULT);

        assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(before);
        assertThat(tags("pvc-clone")).containsExactlyInAnyOrder("pillar-csi", INSTALLATION, CONTENT);
        BackendAssertions.deleted(linear, CLONE);
        BackendAssertions.deleted(linear, SRC);
        assertNoLvLeft();
    }

    @Test
    void aCopyInTheBackgroundAnswersBusyWithItsProgressUntilItIsWhole() throws Exception {
        LvmBackend impatient = LvmBackend.of(new BackendConfig("lvm", BackendKind.BACKEND_KIND_LVM_LINEAR, vg, ""), runner,
                Path.of("/dev"), Path.of("/sys"), DEADLINE, Duration.ofSeconds(10), pillar.agent.state.InstallationId.EMBEDDED,
                BlockCopy.DIRECT, System::nanoTime, Duration.ZERO);
        try {
            BackendVolume src = impatient.create(SRC, SIZE, Map.of());
            String before = DeviceData.write(src, 6);

            assertFails(() -> impatient.create(CLONE, SIZE, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(SRC,
                    Mode.DEFAULT)), Kind.BUSY, "copying " + vg + "/pvc-src to " + vg + "/pvc-clone in the background: ");
            BackendVolume clone = null;
            long end = System.nanoTime() + DEADLINE.toNanos();
            int busy = 1;
            while (clone == null) {
                try {
                    clone = impatient.create(CLONE, SIZE, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(SRC, Mode.DEFAULT));
                } catch (BackendException e) {
                    assertThat(e.kind()).as(e.getMessage()).isEqualTo(Kind.BUSY);
                    assertThat(System.nanoTime() - end).as("whole within " + DEADLINE).isNegative();
                    busy++;
                    Thread.sleep(20);
                }
            }
            System.out.println("[fact] a 32 MiB clone in the VM answered BUSY " + busy + " times, 20 ms apart, before it was whole");

            assertThat(DeviceData.hash(clone, SIZE.bytes())).isEqualTo(before);
            assertThat(tags("pvc-clone")).containsExactlyInAnyOrder("pillar-csi", INSTALLATION, CONTENT);
            BackendAssertions.deleted(impatient, SRC);
            BackendAssertions.deleted(impatient, CLONE);
            assertNoLvLeft();
        } finally {
            impatient.close();
        }
    }

    @Test
    void whatLvm2DoesWithTagsSwappedInOneLvchange() {
        sh("lvcreate", "-y", "-n", "lv", "-L", "4m", "--addtag", "a:x/y", vg);
        String out = sh("lvchange", "--deltag", "a:x/y", "--addtag", "b:x/y/1", vg + "/lv");
        String again = sh("lvchange", "--deltag", "a:x/y", "--addtag", "b:x/y/1", vg + "/lv");
        System.out.println("[fact] lvchange --deltag --addtag: " + out + "\n[fact] again: " + again);
        assertThat(tags("lv")).containsExactly("b:x/y/1");
    }

    private static void writeAt(Path device, long at, byte[] data) throws Exception {
        try (FileChannel file = FileChannel.open(device, StandardOpenOption.WRITE)) {
            ByteBuffer buffer = ByteBuffer.wrap(data);
            while (buffer.hasRemaining()) {
                file.write(buffer, at + buffer.position());
            }
            file.force(true);
        }
    }

    /**
     * The ranged {@code blkdiscard --zeroout} a linear delete zeroes with, as util-linux answers it, beside
     * {@link FakeLvm}'s answer to the same argument list on an LV of the same size: a range zeroes just
     * that range, one past the end stops at it, a misaligned offset or length and an offset past the end
     * are refused with the same exit status and message.
     */
    @Test
    void rangedBlkdiscardAnswersAsTheFakeDoes() throws Exception {
        BackendVolume real = linear.create(SRC, SIZE, Map.of());
        DeviceData.write(real, 9);
        FakeLvm fake = new FakeLvm("vgfake", ByteSize.GIB, work.resolve("fakedev"));
        fake.run(Command.of(DEADLINE, "lvcreate", "-y", "--wipesignatures", "y", "--addtag", "pillar-csi", "-n", "pvc-src", "-L",
                SIZE.bytes() + "b", "vgfake"));
        String fakeDevice = fake.node("pvc-src").toString();
        String realDevice = real.device().toString();
        for (List<String> range : List.of(List.of("1048576", "2097152"), List.of("33030144", "1048576"),
                List.of("1", "512"), List.of("512", "1"), List.of("67108864", "512"))) {
            String realAnswer = answer(runner, range, realDevice).replace(realDevice, "DEV");
            String fakeAnswer = answer(fake, range, fakeDevice).replace(fakeDevice, "DEV");
            System.out.println("[blkdiscard --offset " + range.get(0) + " --length " + range.get(1) + "] " + realAnswer);
            assertThat(fakeAnswer).as("range %s", range).isEqualTo(realAnswer);
        }
        byte[] head = LvmLinearCloneTest.read(real.device(), 1L << 20, 2L << 20);
        assertThat(head).as("the range zeroed").containsOnly(0);
        assertThat(LvmLinearCloneTest.read(real.device(), 0, 1L << 20)).as("before the range: kept").isNotEqualTo(new byte[1 << 20]);
    }

    private static String answer(ProcessRunner runner, List<String> range, String device) {
        try {
            runner.run(Command.of(DEADLINE, "blkdiscard", "--zeroout", "--offset", range.get(0), "--length", range.get(1), device));
            return "0";
        } catch (pillar.runtime.exec.CommandFailedException e) {
            return e.exitCode() + " " + e.stderr().strip();
        }
    }

    private static String sha256(byte[] data) throws Exception {
        return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(data));
    }

    private void assertNoLvLeft() {
        assertThat(sh("lvs", "--noheadings", "-o", "lv_name", vg).strip()).isEmpty();
    }

    private List<String> tags(String lv) {
        String tags = sh("lvs", "--noheadings", "-o", "lv_tags", vg + "/" + lv).strip();
        return tags.isEmpty() ? List.of() : List.of(tags.split(","));
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
