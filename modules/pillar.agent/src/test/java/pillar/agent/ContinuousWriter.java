package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import pillar.agent.configfs.BlockWrites;

/**
 * Writes block {@code seq % blocks} with content derived from {@code seq} ({@link BlockWrites}:
 * O_DIRECT, synced to the device), one after another; keeps the last sequence number each block
 * got, the longest time between two completed writes, and the first failed write.
 */
final class ContinuousWriter {
    private final Path device;
    private final BlockWrites writes;
    private final long[] lastSeq;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong longestStallNanos = new AtomicLong();
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    ContinuousWriter(Path device, Path scratch, int blocks) {
        this.device = device;
        this.writes = new BlockWrites(scratch);
        this.lastSeq = new long[blocks];
        Arrays.fill(lastSeq, -1);
        this.thread = new Thread(this::loop, "o-direct-writer");
    }

    void start() {
        thread.start();
    }

    long completed() {
        return completed.get();
    }

    String failure() {
        return failure.get();
    }

    Duration longestStall() {
        return Duration.ofNanos(longestStallNanos.get());
    }

    void awaitWrites(long count) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (completed.get() < count && failure.get() == null) {
            assertThat(System.nanoTime()).as("the writer reached %d writes", count).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    /** Stops the writer, waiting at most a minute, for a clean-up: asserts nothing. */
    void halt() throws InterruptedException {
        running.set(false);
        thread.join(Duration.ofMinutes(1));
    }

    void stop() throws InterruptedException {
        running.set(false);
        thread.join(Duration.ofMinutes(2));
        assertThat(thread.isAlive()).as("the writer stopped").isFalse();
    }

    private void loop() {
        long last = System.nanoTime();
        for (long seq = 0; running.get(); seq++) {
            int block = (int) (seq % lastSeq.length);
            try {
                if (!writes.write(device, block, content(seq), Duration.ofMinutes(2))) {
                    failure.set("write " + seq + " (block " + block + ") failed");
                    return;
                }
            } catch (IOException | RuntimeException e) {
                failure.set("write " + seq + " (block " + block + "): " + e);
                return;
            }
            lastSeq[block] = seq;
            completed.incrementAndGet();
            long now = System.nanoTime();
            longestStallNanos.accumulateAndGet(now - last, Math::max);
            last = now;
        }
    }

    /** Reads every written block back and compares; returns how many were checked. */
    int verify() throws IOException {
        int checked = 0;
        for (int block = 0; block < lastSeq.length; block++) {
            if (lastSeq[block] < 0) {
                continue;
            }
            assertThat(BlockWrites.read(device, block)).as("block %d, written last with sequence %d", block, lastSeq[block])
                    .isEqualTo(content(lastSeq[block]));
            checked++;
        }
        return checked;
    }

    private static byte[] content(long seq) {
        return BlockWrites.block(seq, new Random(seq));
    }
}
