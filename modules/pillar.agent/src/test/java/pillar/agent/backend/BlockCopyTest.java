package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.backend.BackendAssertions.assertFails;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.BackendException.Kind;

/** BlockCopy on files: exact, zero chunks counted and not written, a tail shorter than a chunk, and its deadline. */
class BlockCopyTest {
    private static final int CHUNK = BlockCopy.CHUNK;

    @TempDir
    Path dir;

    @Test
    void copiesExactlyAndSkipsTheZeroChunks() throws Exception {
        long size = 5L * CHUNK + CHUNK / 2; // a last chunk of half the size
        byte[] data = new byte[(int) size];
        new Random(7).nextBytes(data);
        java.util.Arrays.fill(data, CHUNK, 3 * CHUNK, (byte) 0); // chunks 1 and 2 are zeroes
        data[2 * CHUNK + 100] = 0; // (still zero)
        Path source = Files.write(dir.resolve("source"), data);
        Path target = Files.createFile(dir.resolve("target"));

        BlockCopy.Result result = new BlockCopy(BlockCopy.BUFFERED, Duration.ofSeconds(5), System::nanoTime).copy("s to t", source, target, size);

        assertThat(result).isEqualTo(new BlockCopy.Result(size - 2L * CHUNK, 2L * CHUNK));
        byte[] copied = java.util.Arrays.copyOf(Files.readAllBytes(target), (int) size);
        assertThat(copied).isEqualTo(data);
        assertThat(Files.readAllBytes(source)).isEqualTo(data);
    }

    @Test
    void aSourceShorterThanTheSizeReadsZeroesAndAnEmptyOneWritesNothing() throws Exception {
        Path source = Files.write(dir.resolve("source"), new byte[] { 1, 2, 3 });
        Path target = Files.createFile(dir.resolve("target"));

        assertThat(new BlockCopy(BlockCopy.BUFFERED, Duration.ofSeconds(5), System::nanoTime).copy("s", source, target, 2L * CHUNK))
                .isEqualTo(new BlockCopy.Result(CHUNK, CHUNK));
        assertThat(Files.size(target)).isEqualTo(CHUNK);
    }

    @Test
    void aCopyPastItsDeadlineStopsWithAClearError() throws Exception {
        Path source = Files.write(dir.resolve("source"), new byte[4 * CHUNK]);
        Path target = Files.createFile(dir.resolve("target"));
        AtomicLong now = new AtomicLong();
        BlockCopy copy = new BlockCopy(BlockCopy.BUFFERED, Duration.ofSeconds(5), () -> now.getAndAdd(Duration.ofSeconds(4).toNanos()));

        assertFails(() -> copy.copy("vg0/a to vg0/b", source, target, 4L * CHUNK), Kind.FAILED,
                "copying vg0/a to vg0/b stopped at its deadline (6 s) after 1MiB of 4MiB");
    }
}
