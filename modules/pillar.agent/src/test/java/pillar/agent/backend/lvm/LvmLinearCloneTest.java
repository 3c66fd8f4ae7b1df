package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.BlockCopy;
import pillar.agent.backend.MeteredDevices;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.backend.VolumeSource.Mode;
import pillar.agent.backend.VolumeSource;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;

/**
 * Clones on the LVM linear backend against the fake LVM: a block copy onto a new LV that is exact,
 * skips the source's zero chunks, is tagged unfinished until it is whole, runs in the background past
 * the call (BUSY with its progress, one copy however many retries), resumes from its checkpoint after a
 * failure, a restart or a shutdown, is cancelled by a delete of the clone, holds its source against
 * delete and expand, and refuses LINKED, restores, a smaller size, a missing source and a name taken by
 * anything else.
 */
class LvmLinearCloneTest extends FakeLvmFixture {
    private static final VolumeId SRC = VolumeId.of("pvc-src");
    private static final VolumeId COPY = VolumeId.of("pvc-copy");
    private static final ByteSize SIZE = ByteSize.ofMiB(64);
    private static final String INSTALLATION = LvmBackend.INSTALLATION_TAG + "embedded";
    private static final String REQUEST = "volume/pvc-src/independent/67108864";
    private static final BackendConfig FAST = new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", "");

    private BackendVolume src;

    @BeforeEach
    void aLinearSourceWithDataInTwoChunks() throws Exception {
        src = linear.create(SRC, SIZE, Map.of());
        writeChunk(src.device(), 0, 1);
        writeChunk(src.device(), 10, 2);
    }

    private BackendVolume cloneOf(LvmBackend backend, VolumeId id, ByteSize size, VolumeId source, Mode mode) {
        return backend.create(id, size, Map.of(), NonZeroingPool.REFUSE, new VolumeSource.FromVolume(source, mode));
    }

    private BackendVolume cloneOf(VolumeId id) {
        return cloneOf(linear, id, SIZE, SRC, Mode.DEFAULT);
    }

    @Test
    void aCloneTakesItsWholeSizeFromTheCapacityThatGetCapacityReports() {
        ByteSize freeBefore = linear.capacity().available();

        cloneOf(COPY);

        assertThat(linear.capacity().available()).as("a linear clone is a full LV: the VG's free space less its size")
                .isEqualTo(ByteSize.of(freeBefore.bytes() - SIZE.bytes()));
    }

    @Test
    void aCloneIsAnExactCopyThatWritesOnlyTheDataChunksAndIsTaggedWhole() throws Exception {
        String source = sha256(src.device(), SIZE.bytes());

        BackendVolume clone = cloneOf(COPY);

        assertThat(clone).isEqualTo(new BackendVolume(COPY, SIZE, lvm.node("pvc-copy")));
        assertThat(sha256(clone.device(), SIZE.bytes())).isEqualTo(source);
        assertThat(sha256(src.device(), SIZE.bytes())).as("the source is only read").isEqualTo(source);
        assertThat(Files.size(clone.device())).as("nothing written past the last data chunk").isEqualTo(11L * BlockCopy.CHUNK);
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.content:" + REQUEST);
        assertThat(lvm.tags("pvc-src")).as("the hold is taken off once the copy is whole").containsExactly("pillar-csi", INSTALLATION);
        assertThat(lvm.argvs()).contains(
                List.of("lvchange", "--addtag", "pillar-csi.cloning:pvc-copy", "vg0/pvc-src"),
                List.of("lvchange", "--deltag", "pillar-csi.cloning:pvc-copy", "vg0/pvc-src"),
                List.of("lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "--addtag", "pillar-csi", "--addtag", INSTALLATION,
                        "--addtag", "pillar-csi.copying:" + REQUEST, "-n", "pvc-copy", "-L", "67108864b", "vg0"),
                List.of("lvchange", "--deltag", "pillar-csi.copying:" + REQUEST, "--addtag", "pillar-csi.content:" + REQUEST, "vg0/pvc-copy"));
        assertThat(lvm.programs()).as("a new LV reads zeroes already (deletes zero)").doesNotContain("blkdiscard");
        assertThat(cloneOf(linear, COPY, SIZE, SRC, Mode.INDEPENDENT)).as("DEFAULT and INDEPENDENT are one request").isEqualTo(clone);
        assertThat(lvm.creations("pvc-copy")).isEqualTo(1);
        assertThat(linear.list()).containsExactly(clone, src);
        assertThat(linear.find(COPY)).contains(clone);
    }

    @Test
    void aLargerCloneReadsZeroesPastTheSourceAndWritesStayOnTheirSide() throws Exception {
        String source = sha256(src.device(), SIZE.bytes());
        BackendVolume clone = cloneOf(linear, COPY, ByteSize.ofMiB(126), SRC, Mode.DEFAULT);

        assertThat(clone.size()).isEqualTo(ByteSize.ofMiB(128));
        assertThat(sha256(clone.device(), SIZE.bytes())).isEqualTo(source);
        assertThat(read(clone.device(), SIZE.bytes(), SIZE.bytes())).as("past the source: zeroes").isEqualTo(new byte[(int) SIZE.bytes()]);
        writeChunk(clone.device(), 0, 3);
        assertThat(sha256(src.device(), SIZE.bytes())).isEqualTo(source);
        writeChunk(src.device(), 1, 4);
        assertThat(read(clone.device(), BlockCopy.CHUNK, BlockCopy.CHUNK)).containsOnly(0);
    }

    @Test
    void aCopyLongerThanOneCallAnswersBusyWithItsProgressAndCompletesOverSeveralRetries() throws Exception {
        String source = sha256(src.device(), SIZE.bytes());
        MeteredDevices devices = MeteredDevices.gated();
        LinearLvmBackend agent = backend(FAST, devices, System::nanoTime, Duration.ZERO);

        assertFails(() -> cloneOf(agent, COPY, SIZE, SRC, Mode.DEFAULT), Kind.BUSY,
                "copying vg0/pvc-src to vg0/pvc-copy in the background: 0B of 64MiB (0%)");
        devices.let(20);
        await(() -> devices.sourceBytes.get() == 20L * BlockCopy.CHUNK);
        await(() -> busy(agent).contains("20MiB of 64MiB (31%)"));
        assertFails(() -> cloneOf(agent, COPY, SIZE, SRC, Mode.DEFAULT), Kind.BUSY, "20MiB of 64MiB (31%)");
        assertFails(() -> linear.create(COPY, SIZE, Map.of()), Kind.CONFLICT, "an unfinished copy of " + REQUEST);
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.copying:" + REQUEST);
        devices.openGate();

        BackendVolume clone = untilWhole(agent, COPY);

        assertThat(sha256(clone.device(), SIZE.bytes())).isEqualTo(source);
        assertThat(devices.sourcesOpened).as("the retries started no second copy").hasValue(1);
        assertThat(devices.sourceBytes).hasValue(SIZE.bytes());
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.content:" + REQUEST);
        assertThat(lvm.creations("pvc-copy")).isEqualTo(1);
        assertThat(lvm.programs()).doesNotContain("blkdiscard");
    }

    @Test
    void aRetryWhoseReadSawTheCopyUnfinishedWhileItEndedStartsNoSecondCopy() throws Exception {
        String source = sha256(src.device(), SIZE.bytes());
        MeteredDevices devices = MeteredDevices.gated();
        LinearLvmBackend agent = backend(FAST, devices, System::nanoTime, Duration.ZERO);
        assertFails(() -> cloneOf(agent, COPY, SIZE, SRC, Mode.DEFAULT), Kind.BUSY, "0B of 64MiB (0%)");
        // the retry reads the LV (tagged copying), then the copy ends (tagged finished, out of the registry),
        // then the retry looks for the copy in the registry
        lvm.afterNextLvsOf("pvc-copy", () -> {
            devices.openGate();
            try {
                await(() -> lvm.tags("pvc-copy").contains("pillar-csi.content:" + REQUEST));
                await(() -> !agent.copyRegistered(COPY));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });

        BackendVolume clone = cloneOf(agent, COPY, SIZE, SRC, Mode.DEFAULT);

        assertThat(sha256(clone.device(), SIZE.bytes())).isEqualTo(source);
        assertThat(devices.sourcesOpened).as("the retry started no second copy").hasValue(1);
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.content:" + REQUEST);
    }

    @Test
    void aCopyCutShortResumesFromItsCheckpointAfterARestartReadingOnlyTheRestAndEndsExact() throws Exception {
        writeChunk(src.device(), 50, 5);
        String source = sha256(src.device(), SIZE.bytes());
        AtomicLong now = new AtomicLong();
        // 10 s a reading: a checkpoint (fsync, then the tag) every third chunk; the source fails at 40 MiB
        MeteredDevices failing = MeteredDevices.open().failingAt(40L * BlockCopy.CHUNK);
        LinearLvmBackend crashed = backend(FAST, failing, () -> now.getAndAdd(Duration.ofSeconds(10).toNanos()), CALL_WAIT);

        assertFails(() -> cloneOf(crashed, COPY, SIZE, SRC, Mode.DEFAULT), Kind.FAILED,
                "copying vg0/pvc-src to vg0/pvc-copy failed at 40MiB: java.io.IOException: Input/output error");
        List<String> tags = List.copyOf(lvm.tags("pvc-copy"));
        assertThat(tags).hasSize(4).contains("pillar-csi", INSTALLATION, "pillar-csi.copying:" + REQUEST);
        long checkpoint = Long.parseLong(tags.get(3).substring("pillar-csi.copied:".length()));
        assertThat(checkpoint).as(tags.get(3)).isBetween(30L * BlockCopy.CHUNK, 39L * BlockCopy.CHUNK);
        assertThat(checkpoint % BlockCopy.CHUNK).isZero();
        writeChunk(lvm.node("pvc-copy"), 45, 7); // past the checkpoint, where the source is zeroes: as a cut-short run may leave it

        MeteredDevices metered = MeteredDevices.open();
        LinearLvmBackend restarted = backend(FAST, metered, System::nanoTime, CALL_WAIT);
        BackendVolume clone = cloneOf(restarted, COPY, SIZE, SRC, Mode.DEFAULT);

        assertThat(metered.sourceBytes).as("resumed at the checkpoint").hasValue(SIZE.bytes() - checkpoint);
        assertThat(sha256(clone.device(), SIZE.bytes())).isEqualTo(source);
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.content:" + REQUEST);
        assertThat(lvm.programs()).as("nothing zeroed again").doesNotContain("blkdiscard");
        assertThat(lvm.argvs()).contains(List.of("lvchange", "--deltag", "pillar-csi.copying:" + REQUEST, "--deltag", tags.get(3),
                "--addtag", "pillar-csi.content:" + REQUEST, "vg0/pvc-copy"));
    }

    @Test
    void theShutdownStopsACopyAtACheckpointThatTheNextAgentResumesFrom() throws Exception {
        String source = sha256(src.device(), SIZE.bytes());
        MeteredDevices devices = MeteredDevices.gated();
        LinearLvmBackend stopping = backend(FAST, devices, System::nanoTime, Duration.ZERO);
        assertFails(() -> cloneOf(stopping, COPY, SIZE, SRC, Mode.DEFAULT), Kind.BUSY, "in the background");
        devices.let(12);
        await(() -> devices.sourceBytes.get() == 12L * BlockCopy.CHUNK);

        CompletableFuture<Void> closed = CompletableFuture.runAsync(stopping::close);
        while (!closed.isDone()) {
            devices.let(1); // the chunk being read ends, then the copy sees the stop
            Thread.sleep(5);
        }
        closed.get();

        long stoppedAt = devices.sourceBytes.get();
        assertThat(stoppedAt).isLessThan(SIZE.bytes());
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.copying:" + REQUEST,
                "pillar-csi.copied:" + stoppedAt);
        MeteredDevices metered = MeteredDevices.open();
        BackendVolume clone = cloneOf(backend(FAST, metered, System::nanoTime, CALL_WAIT), COPY, SIZE, SRC, Mode.DEFAULT);
        assertThat(metered.sourceBytes).hasValue(SIZE.bytes() - stoppedAt);
        assertThat(sha256(clone.device(), SIZE.bytes())).isEqualTo(source);
    }

    @Test
    void deletingTheCloneWhileItIsCopiedCancelsTheCopyAndRemovesIt() throws Exception {
        String source = sha256(src.device(), SIZE.bytes());
        MeteredDevices devices = MeteredDevices.gated();
        LinearLvmBackend agent = backend(FAST, devices, System::nanoTime, Duration.ZERO);
        assertFails(() -> cloneOf(agent, COPY, SIZE, SRC, Mode.DEFAULT), Kind.BUSY, "in the background");
        devices.let(3);

        CompletableFuture<Void> deleted = CompletableFuture.runAsync(() -> untilDeleted(agent, COPY));
        while (!deleted.isDone()) {
            devices.let(1);
            Thread.sleep(5);
        }
        deleted.get();

        assertThat(devices.sourceBytes.get()).as("cancelled, not copied to its end").isLessThan(SIZE.bytes());
        assertThat(lvm.exists("pvc-copy")).isFalse();
        assertThat(sha256(src.device(), SIZE.bytes())).isEqualTo(source);
        untilDeleted(agent, SRC); // no copy reads it any more
        assertThat(lvm.exists("pvc-src")).isFalse();
    }

    @Test
    void theSourceRefusesDeleteAndExpandWhileItIsCopiedNamingTheCopyAndAllowsThemAfter() throws Exception {
        MeteredDevices devices = MeteredDevices.gated();
        LinearLvmBackend agent = backend(FAST, devices, System::nanoTime, Duration.ZERO);
        assertFails(() -> cloneOf(agent, COPY, SIZE, SRC, Mode.DEFAULT), Kind.BUSY, "in the background");

        assertFails(() -> agent.delete(SRC), Kind.BUSY, "volume pvc-src is the source of a clone being copied (copying vg0/pvc-src"
                + " to vg0/pvc-copy in the background: 0B of 64MiB (0%)");
        assertFails(() -> agent.expand(SRC, ByteSize.ofMiB(128)), Kind.BUSY, "volume pvc-src cannot be resized while copying"
                + " vg0/pvc-src to vg0/pvc-copy");
        assertFails(() -> agent.expand(COPY, ByteSize.ofMiB(128)), Kind.BUSY, "volume pvc-copy cannot be resized while copying");
        assertFails(() -> cloneOf(agent, VolumeId.of("pvc-third"), SIZE, COPY, Mode.DEFAULT), Kind.BUSY,
                "volume pvc-copy is itself a clone whose copy is not finished");
        assertThat(lvm.exists("pvc-src")).isTrue();
        assertThat(lvm.sizeOf("pvc-src")).isEqualTo(SIZE.bytes());
        assertThat(lvm.exists("pvc-third")).isFalse();

        devices.openGate();
        untilWhole(agent, COPY);
        assertThat(agent.expand(SRC, ByteSize.ofMiB(128))).isEqualTo(ByteSize.ofMiB(128));
        untilDeleted(agent, SRC);
        assertThat(lvm.exists("pvc-src")).isFalse();
    }

    @Test
    void afterARestartTheSourceOfAnInterruptedCloneRefusesDeleteAndExpandUntilTheCloneIsGone() throws Exception {
        LinearLvmBackend crashed = backend(FAST, MeteredDevices.open().failingAt(10L * BlockCopy.CHUNK), System::nanoTime, CALL_WAIT);
        assertFails(() -> cloneOf(crashed, COPY, SIZE, SRC, Mode.DEFAULT), Kind.FAILED, "failed at 10MiB");
        assertThat(lvm.tags("pvc-src")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.cloning:pvc-copy");
        LinearLvmBackend restarted = backend(FAST, MeteredDevices.open(), System::nanoTime, CALL_WAIT);

        assertFails(() -> restarted.delete(SRC), Kind.BUSY, "volume pvc-src cannot be deleted: it is the source of the clone pvc-copy,"
                + " whose copy was interrupted (a failure or an agent restart) and resumes when its CreateVolume is retried");
        assertFails(() -> restarted.expand(SRC, ByteSize.ofMiB(128)), Kind.BUSY, "cannot be resized: it is the source of the clone pvc-copy");
        assertThat(lvm.exists("pvc-src")).isTrue();
        assertThat(lvm.sizeOf("pvc-src")).isEqualTo(SIZE.bytes());

        restarted.delete(COPY);
        assertThat(restarted.expand(SRC, ByteSize.ofMiB(128))).as("a stale hold is dropped").isEqualTo(ByteSize.ofMiB(128));
        assertThat(lvm.tags("pvc-src")).containsExactly("pillar-csi", INSTALLATION);
        restarted.delete(SRC);
        assertThat(lvm.exists("pvc-src")).isFalse();
    }

    @Test
    void aCrashBetweenLvcreateAndTheCopyIsFinishedByTheRetry() throws Exception {
        lvm.run(new Command(List.of("lvcreate", "-y", "--wipesignatures", "y", "--zero", "y", "--addtag", "pillar-csi", "--addtag",
                INSTALLATION, "--addtag", "pillar-csi.copying:" + REQUEST, "-n", "pvc-copy", "-L", "67108864b", "vg0"), TIMEOUT));

        assertThat(sha256(cloneOf(COPY).device(), SIZE.bytes())).isEqualTo(sha256(src.device(), SIZE.bytes()));
        assertThat(lvm.tags("pvc-copy")).containsExactly("pillar-csi", INSTALLATION, "pillar-csi.content:" + REQUEST);
    }

    @Test
    void linkedRestoresSmallerAndMissingSourcesAreRefusedAndChangeNothing() {
        assertFails(() -> cloneOf(linear, COPY, SIZE, SRC, Mode.LINKED), Kind.INVALID,
                "an LVM linear volume cannot share blocks: a clone is a full copy; ask for independent or default");
        assertFails(() -> linear.create(COPY, SIZE, Map.of(), NonZeroingPool.REFUSE,
                new VolumeSource.FromSnapshot(SnapshotId.of("snapshot-1"), Mode.DEFAULT)), Kind.UNSUPPORTED, "has no snapshots");
        assertFails(() -> cloneOf(linear, COPY, ByteSize.ofMiB(32), SRC, Mode.DEFAULT), Kind.OUT_OF_RANGE,
                "smaller than its source (64MiB)");
        assertFails(() -> cloneOf(linear, COPY, SIZE, VolumeId.of("pvc-none"), Mode.DEFAULT), Kind.NOT_FOUND,
                "volume pvc-none does not exist");
        lvm.addTagged("pvc-thin", SIZE.bytes(), "pool0");
        assertFails(() -> cloneOf(linear, COPY, SIZE, VolumeId.of("pvc-thin"), Mode.DEFAULT), Kind.NOT_FOUND, "does not exist");
        assertThat(lvm.exists("pvc-copy")).isFalse();
    }

    @Test
    void theSameIdOfAnotherSourceSizeOrAPlainVolumeIsAlreadyExists() {
        linear.create(PVC1, SIZE, Map.of());
        cloneOf(COPY);

        assertFails(() -> cloneOf(linear, COPY, SIZE, PVC1, Mode.DEFAULT), Kind.CONFLICT,
                "was not made from volume/pvc-1/independent/67108864 (made from " + REQUEST + ")");
        assertFails(() -> cloneOf(linear, COPY, ByteSize.ofMiB(128), SRC, Mode.DEFAULT), Kind.CONFLICT, "made from " + REQUEST);
        assertFails(() -> cloneOf(linear, PVC1, SIZE, SRC, Mode.DEFAULT), Kind.CONFLICT, "(no content tag)");
        lvm.addForeign("pvc-foreign", SIZE.bytes(), "");
        assertFails(() -> cloneOf(linear, VolumeId.of("pvc-foreign"), SIZE, SRC, Mode.DEFAULT), Kind.CONFLICT, "no tag pillar-csi");
    }

    @Test
    void deletingEitherFirstLeavesNoLvAndARetryAfterTheSourceWentReturnsTheClone() throws Exception {
        BackendVolume clone = cloneOf(COPY);
        BackendVolume second = cloneOf(VolumeId.of("pvc-second"));

        linear.delete(SRC);
        assertThat(cloneOf(COPY)).isEqualTo(clone);
        linear.delete(COPY);
        assertThat(read(second.device(), 0, 16)).containsOnly(1);
        linear.delete(VolumeId.of("pvc-second"));
        assertThat(lvm.names()).containsExactly("pool0");
    }

    /** The clone, retried as the provisioner does while the agent answers BUSY. */
    /** Retries the delete while it answers BUSY (its zeroing runs in the background), for at most 20 s. */
    static void untilDeleted(LvmBackend agent, VolumeId id) {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                agent.delete(id);
                return;
            } catch (BackendException e) {
                if (e.kind() != Kind.BUSY || System.nanoTime() - end > 0) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
            }
        }
    }

    private BackendVolume untilWhole(LvmBackend agent, VolumeId id) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try {
                return cloneOf(agent, id, SIZE, SRC, Mode.DEFAULT);
            } catch (BackendException e) {
                if (e.kind() != Kind.BUSY || System.nanoTime() - end > 0) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }

    /** The BUSY answer of a retry now. */
    private String busy(LvmBackend agent) {
        try {
            cloneOf(agent, COPY, SIZE, SRC, Mode.DEFAULT);
            return "whole";
        } catch (BackendException e) {
            return e.kind() + ": " + e.getMessage();
        }
    }

    private static void await(java.util.function.BooleanSupplier condition) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - end).as("waited 10 s").isNegative();
            Thread.sleep(5);
        }
    }

    // --- the devices -------------------------------------------------------------------------------------

    /** Fills chunk {@code index} of the device with {@code fill} (1 and 2: with random bytes after 16 of the fill). */
    static void writeChunk(Path device, long index, int fill) throws Exception {
        byte[] data = new byte[BlockCopy.CHUNK];
        if (fill == 1 || fill == 2) {
            new Random(fill).nextBytes(data); // random data, its first 16 bytes the fill
        }
        java.util.Arrays.fill(data, 0, fill == 1 || fill == 2 ? 16 : data.length, (byte) fill);
        try (FileChannel file = FileChannel.open(device, StandardOpenOption.WRITE)) {
            file.write(ByteBuffer.wrap(data), index * BlockCopy.CHUNK);
        }
    }

    /** {@code length} bytes of the device from {@code at}; past the node's end zeroes (as the fake's LV reads). */
    static byte[] read(Path device, long at, long length) throws Exception {
        byte[] all = Files.readAllBytes(device);
        byte[] out = new byte[(int) length];
        if (at < all.length) {
            System.arraycopy(all, (int) at, out, 0, (int) Math.min(length, all.length - at));
        }
        return out;
    }

    static String sha256(Path device, long bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(read(device, 0, bytes)));
    }
}
