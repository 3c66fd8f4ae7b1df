package pillar.launch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A workload (or another helper JVM) that a tool or a test runs as its own process: its command line,
 * its output (stdout and stderr) in one log file, and the ways it ends: SIGTERM with patience then
 * SIGKILL ({@link #stop}), or SIGKILL at once as a crash ({@link #kill}). Every wait has a deadline; a
 * process that dies or never gets ready fails with the last lines of its log.
 */
public final class ChildProcess implements AutoCloseable {
    /** How long a SIGKILLed process is waited for. */
    private static final Duration REAPED = Duration.ofSeconds(30);
    private static final int TAIL_LINES = 40;

    private final String name;
    private final List<String> command;
    private final Path log;
    private final Map<String, String> environment;
    private final Process process;
    private final long launched;

    private ChildProcess(String name, List<String> command, Path log, Map<String, String> environment, boolean append) {
        this.name = name;
        this.command = List.copyOf(command);
        this.log = log;
        this.environment = Map.copyOf(environment);
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
            ProcessBuilder builder = new ProcessBuilder(this.command).redirectErrorStream(true)
                    .redirectOutput(append ? ProcessBuilder.Redirect.appendTo(log.toFile()) : ProcessBuilder.Redirect.to(log.toFile()));
            builder.environment().putAll(this.environment);
            this.launched = System.nanoTime();
            this.process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + String.join(" ", command), e);
        }
    }

    /** Starts {@code command}; its output replaces {@code log}. */
    public static ChildProcess start(String name, List<String> command, Path log) {
        return new ChildProcess(name, command, log, Map.of(), false);
    }

    /** As {@link #start(String, List, Path)}, with these variables added to the environment; {@code append}: keep the log's earlier runs. */
    public static ChildProcess start(String name, List<String> command, Path log, Map<String, String> environment, boolean append) {
        return new ChildProcess(name, command, log, environment, append);
    }

    /** The same command started again, its output appended to the same log (after {@link #kill}: a restart). */
    public ChildProcess again() {
        if (process.isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        return new ChildProcess(name, command, log, environment, true);
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The time since it was launched. */
    public Duration sinceLaunch() {
        return Duration.ofNanos(System.nanoTime() - launched);
    }

    /** Fails, with its exit status and its log, when it has exited; {@code before} says what it should have done first. */
    public void requireAlive(String before) {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with status " + process.exitValue() + " before " + before
                    + "; its log (" + log + "):\n" + tail());
        }
    }

    /**
     * Polls {@code ready} every {@code poll} until it holds; returns the time since launch. Fails when the
     * process exits first or {@code patience} runs out (the process is left running: the caller closes it).
     */
    public Duration awaitReady(BooleanSupplier ready, Duration patience, Duration poll) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!ready.getAsBoolean()) {
            requireAlive("it was ready");
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(name + " was not ready within " + patience + "; its log (" + log + "):\n" + tail());
            }
            sleep(poll);
        }
        return sinceLaunch();
    }

    /** Waits for it to exit on its own; returns its exit status. Fails (and leaves it running) after {@code patience}. */
    public int awaitExit(Duration patience) {
        try {
            if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " kept running for " + patience + "; its log (" + log + "):\n" + tail());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + name, e);
        }
        return process.exitValue();
    }

    /** Every line of its log so far (none when it has none yet). */
    public List<String> logLines() {
        try {
            return Files.readAllLines(log);
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The last lines of its log. */
    public String tail() {
        List<String> lines = logLines();
        return lines.isEmpty() ? "(its log is empty or missing)"
                : String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
    }

    /** SIGTERM, without waiting (to stop several at once before closing each). */
    public void terminate() {
        if (process.isAlive()) {
            process.destroy();
        }
    }

    /** SIGTERM, then SIGKILL once {@code patience} is over (a JVM writing its AOT cache at exit takes a while). */
    public void stop(Duration patience) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL, and waits until it is gone: what a crash or an OOM kill does. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(REAPED.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@link #stop} with 30 s of patience. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }

    private static void sleep(Duration poll) {
        try {
            Thread.sleep(poll.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
