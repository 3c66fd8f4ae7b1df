package pillar.sandbox;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * File I/O through an NFS mount, each call under a deadline: a hard mount waits for its server
 * forever, so a read or write that does not return within {@link #DEADLINE} fails the step, naming
 * the file (its thread, a daemon, is left blocked in the kernel), instead of hanging the run. The I/O
 * of a fenced node, expected to fail or block, runs in a child process that is killed when it blocks.
 */
final class BoundedIo {
    static final Duration DEADLINE = Duration.ofSeconds(60);

    private BoundedIo() {
    }

    /** Writes {@code text} to {@code file} (created or truncated) and fsyncs it. */
    static void writeSynced(Path file, String text) throws Exception {
        call("writing " + file, () -> write(file, text));
    }

    static String read(Path file) throws Exception {
        return call("reading " + file, () -> Files.readString(file));
    }

    /**
     * What a write of a fenced client did within {@code wait}: "fails: ..." with its error, or "blocks"
     * when it had not returned (its client is refused by the server and waits). One that succeeded is
     * an {@link AssertionError}. The write is a child process ({@code dd}), killed and reaped when it
     * blocks, as kubelet kills a pod before it unpublishes its volume: nothing of the test keeps the
     * mount busy afterwards.
     */
    static String refusedWrite(Path file, String text, Duration wait) throws Exception {
        String outcome = childOutcome(List.of("dd", "of=" + file, "conv=fsync", "status=none"),
                text.getBytes(StandardCharsets.UTF_8), wait);
        if (outcome.startsWith("returned")) {
            throw new AssertionError("writing " + file + " succeeded where it must not");
        }
        return outcome;
    }

    /**
     * What reading {@code file} did within {@code wait}, in {@link #outcome}'s words ("returned: CONTENT",
     * "fails: ERROR", "blocks (...)"); the read is a child process ({@code cat}), killed and reaped when it
     * blocks, so it leaves nothing open on the mount.
     */
    static String readOutcome(Path file, Duration wait) throws Exception {
        return childOutcome(List.of("cat", "--", file.toString()), new byte[0], wait);
    }

    /**
     * Runs {@code argv} with {@code stdin}: "returned: STDOUT" when it exits 0 within {@code wait}, "fails: STDERR"
     * when it exits otherwise, "blocks (...)" when it had not exited; then it is SIGKILLed (an NFS wait is
     * killable) and reaped within {@link #DEADLINE}, or the call fails naming it.
     */
    private static String childOutcome(List<String> argv, byte[] stdin, Duration wait) throws Exception {
        Path out = Files.createTempFile("bounded-io", ".out");
        Path err = Files.createTempFile("bounded-io", ".err");
        try {
            Process child = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            try (var in = child.getOutputStream()) {
                in.write(stdin);
            }
            if (!child.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                child.destroyForcibly();
                if (!child.waitFor(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new AssertionError(argv + " blocked on the mount and did not exit within " + DEADLINE.toSeconds()
                            + " s of SIGKILL (pid " + child.pid() + ")");
                }
                return "blocks (no answer within " + wait.toSeconds() + " s; killed)";
            }
            return child.exitValue() == 0 ? "returned: " + Files.readString(out) : "fails: " + Files.readString(err).strip();
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * What {@code io} did within {@code wait}, in words: "returned: VALUE", "fails: ERROR" (an
     * {@link IOException}), or "blocks (...)" when it had not returned; any other failure is thrown.
     */
    static String outcome(Callable<?> io, Duration wait) throws Exception {
        FutureTask<?> task = start(io);
        try {
            return "returned: " + task.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return "blocks (no answer within " + wait.toSeconds() + " s)";
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io2) {
                return "fails: " + io2.getClass().getSimpleName() + ": " + io2.getMessage();
            }
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    /** Runs {@code io} on a daemon thread of its own and returns what it returned, or throws what it threw. */
    static <T> T call(String what, Callable<T> io) throws Exception {
        FutureTask<T> task = start(io);
        try {
            return task.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " did not return within " + DEADLINE.toSeconds()
                    + " s (a hard NFS mount waiting for its server?)");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    private static <T> FutureTask<T> start(Callable<T> io) {
        FutureTask<T> task = new FutureTask<>(io);
        Thread.ofPlatform().daemon().name("nfs-io").start(task);
        return task;
    }

    private static Void write(Path file, String text) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
        return null;
    }
}
