package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.BlockCopy;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeSource;
import pillar.agent.config.BackendConfig;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/**
 * A linear delete's zeroing as a background job (fake LVM): the delete and its retries answer BUSY with
 * the progress and each chunk is one bounded blkdiscard; the LV stays, refusing to be adopted, grown or
 * copied onto, until it reads zeroes from start to end; a restart resumes at the checkpoint tag; and the
 * next volume on those extents reads zeroes.
 */
class LvmZeroingTest extends FakeLvmFixture {
    private static final ByteSize SIZE = ByteSize.ofMiB(64);
    private static final BackendConfig LINEAR = new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", "");

    /** The fake behind a gate: each blkdiscard waits for a permit; {@code killAfter} chunks, the next one is killed. */
    private final class Gated implements ProcessRunner {
        final Semaphore permits = new Semaphore(0);
        final AtomicInteger killAfter = new AtomicInteger(Integer.MAX_VALUE);
        final List<Command> blkdiscards = new ArrayList<>();

        @Override
        public CommandResult run(Command command) {
            if (command.argv().getFirst().equals("blkdiscard")) {
                permits.acquireUninterruptibly();
                synchronized (this) {
                    blkdiscards.add(command);
                }
                if (killAfter.decrementAndGet() < 0) {
                    throw new CommandFailedException(command, -1, "", true);
                }
            }
            return lvm.run(command);
        }

        synchronized List<Long> offsets() {
            return blkdiscards.stream().map(c -> Long.parseLong(c.argv().get(3))).toList();
        }
    }

    private LvmBackend backend(ProcessRunner runner, java.util.function.LongSupplier clock) {
        return backend(runner, clock, Duration.ZERO);
    }

    private LvmBackend backend(ProcessRunner runner, java.util.function.LongSupplier clock, Duration callWait) {
        LvmBackend backend = LvmBackend.of(LINEAR, runner, dev, dev.resolveSibling("sys"), TIMEOUT, Duration.ofSeconds(2),
                pillar.agent.state.InstallationId.EMBEDDED, BlockCopy.BUFFERED, clock, callWait);
        made(backend);
        return backend;
    }

    @Test
    void aDeleteAnswersBusyWithTheProgressUntilTheLvIsZeroedThenRemovesIt() throws Exception {
        Gated gated = new Gated();
        LvmBackend agent = backend(gated, System::nanoTime);
        BackendVolume old = agent.create(PVC1, SIZE, Map.of());
        LvmRemanenceTest.write(old.device(), pattern());
        List<String> extents = lvm.ranges("pvc-1");
        long chunk = DeviceZeroing.chunk(SIZE.bytes());

        assertFails(() -> agent.delete(PVC1), Kind.BUSY, "zeroing vg0/pvc-1 before its removal in the background: 0B of 64MiB (0%)");
        assertThat(lvm.tags("pvc-1")).as("marked as being deleted before the first chunk").contains("pillar-csi.zeroed:0");
        gated.permits.release(2);
        awaitOffsets(gated, 2);
        String busy = busyAnswer(agent);
        assertThat(busy).contains("zeroing vg0/pvc-1 before its removal in the background: 16MiB of 64MiB (25%)");
        assertThat(lvm.exists("pvc-1")).as("kept while it is zeroed").isTrue();
        assertFails(() -> agent.create(PVC1, SIZE, Map.of()), Kind.BUSY, "volume pvc-1 cannot be created again: it is being deleted");
        assertFails(() -> agent.expand(PVC1, ByteSize.ofMiB(128)), Kind.BUSY, "volume pvc-1 cannot be resized while zeroing vg0/pvc-1");

        gated.permits.release(Integer.MAX_VALUE / 2);
        LvmLinearCloneTest.untilDeleted(agent, PVC1);

        assertThat(lvm.exists("pvc-1")).isFalse();
        assertThat(gated.offsets()).as("one chunk after the other, each once").isEqualTo(offsets(0, SIZE.bytes(), chunk));
        assertThat(gated.blkdiscards).allSatisfy(c -> assertThat(c.timeout()).isEqualTo(DeviceZeroing.deadline(TIMEOUT, chunk)));
        BackendVolume fresh = agent.create(PVC2, SIZE, Map.of());
        assertThat(lvm.ranges("pvc-2")).isEqualTo(extents);
        assertThat(LvmRemanenceTest.read(fresh.device(), SIZE.bytes())).containsOnly(0);
    }

    @Test
    void aRestartResumesAtTheCheckpointTagAndAnInterruptedDeleteKeepsTheLv() throws Exception {
        AtomicLong now = new AtomicLong();
        Gated crashing = new Gated();
        crashing.permits.release(Integer.MAX_VALUE / 2);
        crashing.killAfter.set(5);
        // every read of the clock is 6 s later: a checkpoint after each chunk
        LvmBackend crashed = backend(crashing, () -> now.addAndGet(Duration.ofSeconds(6).toNanos()), Duration.ofSeconds(20));
        BackendVolume old = crashed.create(PVC1, SIZE, Map.of());
        LvmRemanenceTest.write(old.device(), pattern());
        long chunk = DeviceZeroing.chunk(SIZE.bytes());

        assertFails(() -> crashed.delete(PVC1), Kind.FAILED, "the next call resumes zeroing vg0/pvc-1 before its removal at 40MiB");
        assertThat(lvm.exists("pvc-1")).isTrue();
        assertThat(lvm.tags("pvc-1")).as("one checkpoint tag").filteredOn(t -> t.startsWith("pillar-csi.zeroed:"))
                .containsExactly("pillar-csi.zeroed:" + 5 * chunk);
        crashed.close();

        Gated open = new Gated();
        open.permits.release(Integer.MAX_VALUE / 2);
        LvmBackend restarted = backend(open, System::nanoTime, Duration.ofSeconds(20));
        restarted.delete(PVC1);

        assertThat(open.offsets()).as("resumed at the checkpoint").isEqualTo(offsets(5 * chunk, SIZE.bytes(), chunk));
        assertThat(lvm.exists("pvc-1")).isFalse();
        assertThat(LvmRemanenceTest.read(restarted.create(PVC2, SIZE, Map.of()).device(), SIZE.bytes())).containsOnly(0);
    }

    @Test
    void aCloneCannotBeCopiedOntoAnLvBeingDeleted() throws Exception {
        linear.create(PVC2, SIZE, Map.of());
        lvm.addTagged("pvc-1", SIZE.bytes(), "", List.of(LvmBackend.TAG, LvmBackend.INSTALLATION_TAG + "embedded",
                "pillar-csi.copying:volume/pvc-2/independent/" + SIZE.bytes(), "pillar-csi.zeroed:4194304"));

        assertFails(() -> linear.create(PVC1, SIZE, Map.of(), VolumeBackend.NonZeroingPool.REFUSE,
                new VolumeSource.FromVolume(PVC2, VolumeSource.Mode.DEFAULT)), Kind.BUSY,
                "volume pvc-1 cannot be copied onto: it is being deleted (zeroed up to 4MiB of 64MiB)");
    }

    @Test
    void chunksAreAFewOfTheDeviceAndBoundedSoEachCommandHasABoundedDeadline() {
        assertThat(DeviceZeroing.chunk(32L << 20)).isEqualTo(8L << 20);
        assertThat(DeviceZeroing.chunk(4L << 30)).isEqualTo(256L << 20);
        assertThat(DeviceZeroing.chunk((4L << 30) + (1L << 20))).as("whole MiB").isEqualTo(257L << 20);
        assertThat(DeviceZeroing.chunk(100L << 30)).isEqualTo(1L << 30);
        assertThat(DeviceZeroing.chunk(100L << 40)).isEqualTo(1L << 30);
        assertThat(DeviceZeroing.deadline(TIMEOUT, DeviceZeroing.chunk(100L << 40))).isEqualTo(TIMEOUT.plusSeconds(33));
    }

    private static List<Long> offsets(long from, long size, long chunk) {
        List<Long> offsets = new ArrayList<>();
        for (long at = from; at < size; at += chunk) {
            offsets.add(at);
        }
        return offsets;
    }

    private static void awaitOffsets(Gated gated, int count) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (gated.offsets().size() < count || gated.permits.availablePermits() > 0) {
            assertThat(System.nanoTime() - end).as("%d chunks within 10 s", count).isNegative();
            Thread.sleep(5);
        }
        Thread.sleep(50); // the last chunk's progress is recorded once its command returned
    }

    private static String busyAnswer(LvmBackend agent) {
        try {
            agent.delete(PVC1);
        } catch (BackendException e) {
            assertThat(e.kind()).isEqualTo(Kind.BUSY);
            return e.getMessage();
        }
        throw new AssertionError("the delete answered OK");
    }

    private static byte[] pattern() {
        byte[] bytes = new byte[(int) SIZE.bytes()];
        Arrays.fill(bytes, (byte) 0x5a);
        return bytes;
    }
}
