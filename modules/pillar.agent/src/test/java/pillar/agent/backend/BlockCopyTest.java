package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException.Kind;

/**
 * BlockCopy on files: exact, zero chunks counted and not written, a tail shorter than a chunk, checkpoints
 * by the clock each after an fsync, a stop at a checkpoint, a resumed run that reads the target where the
 * source has zeroes, and an I/O error named with its offset.
 */
class BlockCopyTest {
    private static final int CHUNK = BlockCopy.CHUNK;

    @TempDir
    Path dir;

    /** Records checkpoints; stops once {@code stop} says so of the offset reached. */
    private static final class Recorder implements BlockCopy.Progress {
        final List<Long> checkpoints = new ArrayList<>();
        final LongPredicate stop;
        long reached;

        Recorder(LongPredicate stop) {
            this.stop = stop;
        }

        @Override
        public boolean stopped() {
            return stop.test(reached);
        }

        @Override
        public void reached(long done) {
            reached = done;
        }

        @Override
        public void checkpoint(long done) {
            checkpoints.add(done);
        }
    }

    private static BlockCopy copier() {
        return new BlockCopy(BlockCopy.BUFFERED, System::nanoTime);
    }

    @Test
    void copiesExactlyAndSkipsTheZeroChunks() throws Exception {
        long size = 5L * CHUNK + CHUNK / 2; // a last chunk of half the size
        byte[] data = new byte[(int) size];
        new Random(7).nextBytes(data);
        java.util.Arrays.fill(data, CHUNK, 3 * CHUNK, (byte) 0); // chunks 1 and 2 are zeroes
        Path source = Files.write(dir.resolve("source"), data);
        Path target = Files.createFile(dir.resolve("target"));
        Recorder progress = new Recorder(at -> false);

        BlockCopy.Result result = copier().copy("s to t", source, target, 0, size, true, progress);

        assertThat(result).isEqualTo(new BlockCopy.Result(0, size, size - 2L * CHUNK, 2L * CHUNK, false));
        byte[] copied = java.util.Arrays.copyOf(Files.readAllBytes(target), (int) size);
        assertThat(copied).isEqualTo(data);
        assertThat(Files.readAllBytes(source)).isEqualTo(data);
        assertThat(progress.reached).isEqualTo(size);
        assertThat(progress.checkpoints).as("none within 30 s: the whole copy is flushed instead").isEmpty();
    }

    @Test
    void aSourceShorterThanTheSizeReadsZeroesAndAnEmptyOneWritesNothing() throws Exception {
        Path source = Files.write(dir.resolve("source"), new byte[] { 1, 2, 3 });
        Path target = Files.createFile(dir.resolve("target"));

        assertThat(copier().copy("s", source, target, 0, 2L * CHUNK, true, new Recorder(at -> false)))
                .isEqualTo(new BlockCopy.Result(0, 2L * CHUNK, CHUNK, CHUNK, false));
        assertThat(Files.size(target)).isEqualTo(CHUNK);
    }

    @Test
    void checkpointsComeByTheClockAndAStopEndsAtOne() throws Exception {
        byte[] data = new byte[8 * CHUNK];
        new Random(3).nextBytes(data);
        Path source = Files.write(dir.resolve("source"), data);
        Path target = Files.createFile(dir.resolve("target"));
        AtomicLong now = new AtomicLong();
        BlockCopy copy = new BlockCopy(BlockCopy.BUFFERED, () -> now.getAndAdd(Duration.ofSeconds(16).toNanos()));
        Recorder progress = new Recorder(at -> at >= 5L * CHUNK);

        BlockCopy.Result result = copy.copy("s", source, target, 0, data.length, true, progress);

        assertThat(result).isEqualTo(new BlockCopy.Result(0, 5L * CHUNK, 5L * CHUNK, 0, true));
        assertThat(progress.checkpoints).as("every second chunk (32 s), then at the stop")
                .containsExactly(2L * CHUNK, 4L * CHUNK, 5L * CHUNK);
        assertThat(java.util.Arrays.copyOf(Files.readAllBytes(target), 5 * CHUNK)).isEqualTo(java.util.Arrays.copyOf(data, 5 * CHUNK));
    }

    @Test
    void aResumedRunStartsAtItsOffsetAndZeroesWhatTheTargetHoldsWhereTheSourceHasZeroes() throws Exception {
        byte[] data = new byte[6 * CHUNK];
        new Random(5).nextBytes(data);
        java.util.Arrays.fill(data, 3 * CHUNK, 5 * CHUNK, (byte) 0); // chunks 3 and 4 are zeroes
        Path source = Files.write(dir.resolve("source"), data);
        byte[] half = new byte[6 * CHUNK];
        System.arraycopy(data, 0, half, 0, 2 * CHUNK);
        java.util.Arrays.fill(half, 4 * CHUNK, 5 * CHUNK, (byte) 9); // junk of a cut-short run in chunk 4
        Path target = Files.write(dir.resolve("target"), half);

        BlockCopy.Result result = copier().copy("s", source, target, 2L * CHUNK, data.length, false, new Recorder(at -> false));

        assertThat(result).as("chunks 2, 4 (zeroed) and 5 written, chunk 3 read in both and skipped")
                .isEqualTo(new BlockCopy.Result(2L * CHUNK, 6L * CHUNK, 3L * CHUNK, CHUNK, false));
        assertThat(Files.readAllBytes(target)).isEqualTo(data);
    }

    @Test
    void anIoErrorNamesTheCopyAndItsOffset() throws Exception {
        Path source = Files.write(dir.resolve("source"), new byte[4 * CHUNK]);
        Path target = Files.createFile(dir.resolve("target"));
        BlockCopy copy = new BlockCopy(MeteredDevices.open().failingAt(2L * CHUNK), System::nanoTime);

        assertFails(() -> copy.copy("vg0/a to vg0/b", source, target, 0, 4L * CHUNK, true, new Recorder(at -> false)), Kind.FAILED,
                "copying vg0/a to vg0/b failed at 2MiB: java.io.IOException: Input/output error");
    }
}
