package pillar.sandbox;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * File I/O through an NFS mount, each call under a deadline: a hard mount waits for its server
 * forever, so a read or write that does not return within {@link #DEADLINE} fails the step (its
 * thread, a daemon, is left blocked in the kernel) instead of hanging the run.
 */
final class BoundedIo {
    static final Duration DEADLINE = Duration.ofSeconds(60);

    private BoundedIo() {
    }

    /** Writes {@code text} to {@code file} (created or truncated) and fsyncs it. */
    static void writeSynced(Path file, String text) throws Exception {
        call(() -> {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ch.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
                ch.force(true);
            }
            return null;
        });
    }

    static String read(Path file) throws Exception {
        return call(() -> Files.readString(file));
    }

    /** The message of an I/O that must fail; one that succeeds or hangs is an {@link AssertionError}. */
    static String failure(Callable<?> io) throws Exception {
        Object got;
        try {
            got = call(io);
        } catch (IOException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        throw new AssertionError("the I/O succeeded (" + got + ") where it must fail");
    }

    /** Runs {@code io} on a daemon thread of its own and returns what it returned, or throws what it threw. */
    static <T> T call(Callable<T> io) throws Exception {
        FutureTask<T> task = new FutureTask<>(io);
        Thread.ofPlatform().daemon().name("nfs-io").start(task);
        try {
            return task.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("the I/O did not return within " + DEADLINE.toSeconds()
                    + " s (a hard NFS mount waiting for its server?)");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
