package pillar.agent.backend;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

import com.sun.nio.file.ExtendedOpenOption;

import pillar.agent.backend.BackendException.Kind;
import pillar.api.value.ByteSize;

/**
 * Copies bytes {@code [from, bytes)} of one block device onto another in {@value #CHUNK}-byte chunks, sparse-aware:
 * a source chunk of zeroes is skipped on a target known to read zeroes (a fresh LV), and on a target that may hold
 * an earlier cut-short run's bytes it is written only where the target differs, so a resumed copy is exact. The
 * source is only read. A checkpoint ({@link Progress#checkpoint}, at least every {@link #CHECKPOINT_EVERY} and when
 * stopped) follows an {@code fsync} of the target, so it never names a byte a crash could lose; a whole copy is
 * flushed before {@link #copy} returns. Real devices are opened {@code O_DIRECT} ({@link #DIRECT}). No deadline: it
 * runs in a job ({@link BackgroundJobs}) and stops at the next chunk once {@link Progress#stopped()}.
 */
public final class BlockCopy {
    /** The unit of reads, writes and zero detection. */
    public static final int CHUNK = 1 << 20;
    /** The longest quiet spell of the progress log. */
    public static final Duration LOG_EVERY = Duration.ofSeconds(5);
    /**
     * The longest time between two checkpoints: what a crash can cost at most, traded against one LVM
     * metadata commit (and one archived copy of the metadata) per checkpoint.
     */
    public static final Duration CHECKPOINT_EVERY = Duration.ofSeconds(30);
    private static final int ALIGNMENT = 4096;
    private static final ByteBuffer ZEROES = ByteBuffer.allocateDirect(CHUNK);
    private static final Logger LOG = Logger.getLogger(BlockCopy.class.getName());

    /** The port to the devices: how a device is opened for reading, or for reading and writing. */
    @FunctionalInterface
    public interface Devices {
        FileChannel open(Path device, boolean write) throws IOException;
    }

    /** Block devices: {@code O_DIRECT}, never created. */
    public static final Devices DIRECT = (device, write) -> write
            ? FileChannel.open(device, StandardOpenOption.READ, StandardOpenOption.WRITE, ExtendedOpenOption.DIRECT)
            : FileChannel.open(device, StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
    /** Regular files standing for devices (the fakes' nodes; tmpfs refuses O_DIRECT): buffered. */
    public static final Devices BUFFERED = (device, write) -> write
            ? FileChannel.open(device, StandardOpenOption.READ, StandardOpenOption.WRITE)
            : FileChannel.open(device, StandardOpenOption.READ);

    /** What the copy reports to, and asks, while it runs. */
    public interface Progress {
        /** Whether to stop at the next chunk (a cancel or the agent's shutdown). */
        boolean stopped();

        /** Bytes {@code [0, done)} are copied (not yet on stable storage). */
        void reached(long done);

        /** Bytes {@code [0, done)} are copied and on stable storage. */
        void checkpoint(long done);
    }

    /**
     * What a run did: it went from {@code from} to {@code to} ({@code bytes} unless stopped), wrote
     * {@code written} bytes and skipped {@code skipped} as zeroes (together {@code to - from}).
     */
    public record Result(long from, long to, long written, long skipped, boolean stopped) {
    }

    private final Devices devices;
    private final LongSupplier nanoTime;

    /** @param nanoTime the clock of the checkpoints and the progress log ({@code System::nanoTime}) */
    public BlockCopy(Devices devices, LongSupplier nanoTime) {
        this.devices = devices;
        this.nanoTime = nanoTime;
    }

    /**
     * Copies bytes {@code [from, bytes)} of {@code source} onto {@code target} ({@code what} names them in the
     * log and errors); {@code zeroed}: the target reads zeroes from {@code from} on. A source shorter than
     * {@code bytes} (only a file can be) reads zeroes past its end. Throws FAILED on an I/O error, the
     * target then written beyond the last checkpoint perhaps.
     */
    public Result copy(String what, Path source, Path target, long from, long bytes, boolean zeroed, Progress progress) {
        long start = nanoTime.getAsLong();
        ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK + ALIGNMENT).alignedSlice(ALIGNMENT);
        ByteBuffer existing = zeroed ? null : ByteBuffer.allocateDirect(CHUNK + ALIGNMENT).alignedSlice(ALIGNMENT);
        long written = 0;
        long skipped = 0;
        long nextShare = from + bytes / 10;
        long nextLog = start + LOG_EVERY.toNanos();
        long nextCheckpoint = start + CHECKPOINT_EVERY.toNanos();
        long at = from;
        try (FileChannel in = devices.open(source, false); FileChannel out = devices.open(target, true)) {
            while (at < bytes) {
                if (progress.stopped()) {
                    out.force(true);
                    progress.checkpoint(at);
                    long stoppedAt = at;
                    LOG.info(() -> "copying " + what + " stopped at " + ByteSize.of(stoppedAt) + " of " + ByteSize.of(bytes));
                    return new Result(from, at, written, skipped, true);
                }
                buffer.clear().limit((int) Math.min(CHUNK, bytes - at));
                read(in, buffer, at);
                buffer.flip();
                if (!zeroes(buffer)) {
                    write(out, buffer, at);
                    written += buffer.limit();
                } else if (existing != null && !zeroes(readBack(out, existing, at, buffer.limit()))) {
                    write(out, buffer, at); // a cut-short run wrote here what the source no longer holds
                    written += buffer.limit();
                } else {
                    skipped += buffer.limit();
                }
                at += buffer.limit();
                progress.reached(at);
                long now = nanoTime.getAsLong();
                if (at < bytes && now - nextCheckpoint >= 0) {
                    out.force(true);
                    progress.checkpoint(at);
                    nextCheckpoint = now + CHECKPOINT_EVERY.toNanos();
                }
                if (at < bytes && (at >= nextShare || now - nextLog > 0)) {
                    log(what, from, at, bytes, skipped, start, now);
                    nextShare = at + bytes / 10;
                    nextLog = now + LOG_EVERY.toNanos();
                }
            }
            out.force(true);
        } catch (IOException e) {
            throw new BackendException(Kind.FAILED, "copying " + what + " failed at " + ByteSize.of(at) + ": " + e, e);
        }
        log(what, from, bytes, bytes, skipped, start, nanoTime.getAsLong());
        return new Result(from, bytes, written, skipped, false);
    }

    private static boolean zeroes(ByteBuffer buffer) {
        return buffer.mismatch(ZEROES.duplicate().limit(buffer.limit())) == -1;
    }

    /** {@code length} bytes of the target from {@code at}, to compare. */
    private static ByteBuffer readBack(FileChannel out, ByteBuffer into, long at, int length) throws IOException {
        into.clear().limit(length);
        read(out, into, at);
        return into.flip();
    }

    /** Fills the buffer from {@code at}; past the end of the channel, zeroes. */
    private static void read(FileChannel in, ByteBuffer buffer, long at) throws IOException {
        while (buffer.hasRemaining()) {
            if (in.read(buffer, at + buffer.position()) < 0) {
                buffer.put(ZEROES.duplicate().limit(buffer.remaining()));
            }
        }
    }

    private static void write(FileChannel out, ByteBuffer buffer, long at) throws IOException {
        while (buffer.hasRemaining()) {
            out.write(buffer, at + buffer.position());
        }
    }

    private static void log(String what, long from, long done, long bytes, long skipped, long start, long now) {
        double seconds = Math.max(1e-9, (now - start) / 1e9);
        LOG.info(() -> String.format(java.util.Locale.ROOT, "copying %s: %s of %s (%d%%), %s of them zeroes not written, %.1f MiB/s%s",
                what, ByteSize.of(done), ByteSize.of(bytes), bytes == 0 ? 100 : done * 100 / bytes, ByteSize.of(skipped),
                (done - from) / seconds / (1 << 20), from > 0 ? ", resumed at " + ByteSize.of(from) : ""));
    }

    /** The rate of a run so far, in MiB/s, for a progress message. */
    public static double rate(long from, long done, long startNanos, long nowNanos) {
        return (done - from) / Math.max(1e-9, (nowNanos - startNanos) / 1e9) / (1 << 20);
    }
}
