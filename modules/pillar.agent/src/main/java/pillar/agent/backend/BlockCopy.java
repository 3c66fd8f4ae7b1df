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
import pillar.runtime.exec.CallBudget;

/**
 * Copies the first {@code bytes} of one block device onto another in {@value #CHUNK}-byte chunks,
 * sparse-aware: a chunk that reads all zeroes in the source is not written, so the target must read
 * zeroes everywhere before the copy (the caller's invariant). The target is flushed to stable storage
 * ({@code fsync}) before {@link #copy} returns; the source is only read.
 *
 * <p>The real devices are opened with {@code O_DIRECT} ({@link #DIRECT}): a source exported through
 * nvmet is written with bios that bypass the page cache, so a buffered read could return pages cached
 * before those writes; and a large copy would evict the host's page cache. A source that is written
 * meanwhile gives a crash-consistent copy at best, as any block-level clone of a running volume.
 *
 * <p>Deadline: {@link DeviceZeroing#deadline} of the size (the same floor rate), capped to the call's
 * {@link CallBudget}; past it the copy stops with FAILED and leaves the target half-written (the caller
 * marks it unfinished). Progress is logged at INFO at every tenth of the size or every
 * {@link #LOG_EVERY}, whichever comes first.
 */
final class BlockCopy {
    /** The unit of reads, writes and zero detection. */
    static final int CHUNK = 1 << 20;
    /** The longest quiet spell of the progress log. */
    static final Duration LOG_EVERY = Duration.ofSeconds(5);
    private static final int ALIGNMENT = 4096;
    private static final ByteBuffer ZEROES = ByteBuffer.allocateDirect(CHUNK);
    private static final Logger LOG = Logger.getLogger(BlockCopy.class.getName());

    /** The port to the devices: how a device is opened for reading or for writing. */
    @FunctionalInterface
    interface Devices {
        FileChannel open(Path device, boolean write) throws IOException;
    }

    /** Block devices: {@code O_DIRECT}, never created. */
    static final Devices DIRECT = (device, write) -> FileChannel.open(device,
            write ? StandardOpenOption.WRITE : StandardOpenOption.READ, ExtendedOpenOption.DIRECT);
    /** Regular files standing for devices (the fakes' nodes; tmpfs refuses O_DIRECT): buffered. */
    static final Devices BUFFERED = (device, write) -> FileChannel.open(device,
            write ? StandardOpenOption.WRITE : StandardOpenOption.READ);

    /** What a copy did: bytes written and bytes skipped as zeroes (together the size copied). */
    record Result(long written, long skipped) {
    }

    private final Devices devices;
    private final Duration base;
    private final LongSupplier nanoTime;

    /**
     * @param base     the fixed part of the deadline (the command timeout)
     * @param nanoTime the clock of the deadline and the progress log ({@code System::nanoTime})
     */
    BlockCopy(Devices devices, Duration base, LongSupplier nanoTime) {
        this.devices = devices;
        this.base = base;
        this.nanoTime = nanoTime;
    }

    /**
     * Copies {@code bytes} of {@code source} onto {@code target} ({@code what} names them in the log and
     * errors). A source shorter than {@code bytes} (only a file can be) reads zeroes past its end.
     * Throws FAILED on an I/O error or past the deadline, the target then partly written.
     */
    Result copy(String what, Path source, Path target, long bytes) {
        Duration deadline = CallBudget.cap(DeviceZeroing.deadline(base, bytes));
        long start = nanoTime.getAsLong();
        long end = start + deadline.toNanos();
        ByteBuffer buffer = ByteBuffer.allocateDirect(CHUNK + ALIGNMENT).alignedSlice(ALIGNMENT);
        long written = 0;
        long skipped = 0;
        long nextShare = bytes / 10;
        long nextTime = start + LOG_EVERY.toNanos();
        try (FileChannel in = devices.open(source, false); FileChannel out = devices.open(target, true)) {
            for (long at = 0; at < bytes; at += buffer.limit()) {
                long now = nanoTime.getAsLong();
                if (now - end > 0) {
                    throw new BackendException(Kind.FAILED, "copying " + what + " stopped at its deadline (" + deadline.toSeconds()
                            + " s) after " + ByteSize.of(at) + " of " + ByteSize.of(bytes) + "; the copy is kept unfinished and a retry"
                            + " starts it again");
                }
                buffer.clear().limit((int) Math.min(CHUNK, bytes - at));
                read(in, buffer, at);
                buffer.flip();
                if (buffer.mismatch(ZEROES.duplicate().limit(buffer.limit())) == -1) {
                    skipped += buffer.limit();
                } else {
                    write(out, buffer, at);
                    written += buffer.limit();
                }
                long done = at + buffer.limit();
                if (done < bytes && (done >= nextShare || now - nextTime > 0)) {
                    log(what, done, bytes, skipped, start, now);
                    nextShare = done + bytes / 10;
                    nextTime = now + LOG_EVERY.toNanos();
                }
            }
            out.force(true);
        } catch (IOException e) {
            throw new BackendException(Kind.FAILED, "copying " + what + " failed: " + e, e);
        }
        log(what, bytes, bytes, skipped, start, nanoTime.getAsLong());
        return new Result(written, skipped);
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

    private static void log(String what, long done, long bytes, long skipped, long start, long now) {
        double seconds = Math.max(1e-9, (now - start) / 1e9);
        LOG.info(() -> String.format(java.util.Locale.ROOT, "copying %s: %s of %s (%d%%), %s of them zeroes not written, %.1f MiB/s",
                what, ByteSize.of(done), ByteSize.of(bytes), bytes == 0 ? 100 : done * 100 / bytes, ByteSize.of(skipped),
                done / seconds / (1 << 20)));
    }
}
