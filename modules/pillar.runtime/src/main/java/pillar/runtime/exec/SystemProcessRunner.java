package pillar.runtime.exec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * {@link ProcessRunner} on real processes. A child still running at its deadline (the command's, or
 * less when the call's {@link CallBudget} ends sooner) is killed with SIGKILL, its descendants first.
 */
public final class SystemProcessRunner implements ProcessRunner {
    private static final Logger LOG = Logger.getLogger(SystemProcessRunner.class.getName());
    /** More output than any tool we call prints; the rest is dropped so a runaway child cannot exhaust memory. */
    private static final int MAX_OUTPUT = 16 * 1024 * 1024;
    private static final ProcessBuilder.Redirect NO_INPUT = ProcessBuilder.Redirect.from(new java.io.File("/dev/null"));
    /** The bytes a relay moves at once: small, so that a stop waits for at most one write to a slow second. */
    private static final int RELAY_CHUNK = 128 << 10;
    /** How often a relay's watchdog looks at its flow and its last byte. */
    private static final Duration RELAY_WATCH = Duration.ofMillis(200);

    @Override
    public CommandResult run(Command command) {
        Duration timeout = CallBudget.cap(command.timeout());
        if (timeout.isZero()) {
            throw new CommandFailedException(command, -1, "not started: the call's time budget is spent", true);
        }
        long started = System.nanoTime();
        Process process = start(command, NO_INPUT);
        CompletableFuture<String> out = drain(process.getInputStream());
        CompletableFuture<String> err = drain(process.getErrorStream());
        try {
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                throw new CommandFailedException(command, -1, join(err), true);
            }
            int exit = process.exitValue();
            String stdout = join(out);
            String stderr = join(err);
            LOG.fine(() -> command + " -> " + exit + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
            if (exit != 0) {
                throw new CommandFailedException(command, exit, stderr, false);
            }
            return new CommandResult(stdout, stderr);
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new CommandFailedException(command, -1, "interrupted", true);
        }
    }

    /** Both processes of the pipe through {@link ProcessBuilder#startPipeline}, each with its stderr drained. */
    @Override
    public CommandResult pipe(Command first, Command second) {
        Duration timeout = CallBudget.cap(first.timeout().compareTo(second.timeout()) < 0 ? first.timeout() : second.timeout());
        if (timeout.isZero()) {
            throw new CommandFailedException(first, -1, "not started: the call's time budget is spent", true);
        }
        ProcessBuilder from = builder(first, NO_INPUT);
        ProcessBuilder to = builder(second, ProcessBuilder.Redirect.PIPE);
        List<Process> processes;
        try {
            processes = ProcessBuilder.startPipeline(List.of(from, to));
        } catch (IOException e) {
            throw new CommandFailedException(first, 127, "cannot start the pipe: " + e.getMessage(), false);
        }
        Process sender = processes.get(0);
        Process receiver = processes.get(1);
        CompletableFuture<String> senderErr = drain(sender.getErrorStream());
        CompletableFuture<String> out = drain(receiver.getInputStream());
        CompletableFuture<String> err = drain(receiver.getErrorStream());
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            boolean done = receiver.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)
                    && sender.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (!done) {
                kill(processes);
                throw new CommandFailedException(first, -1, join(senderErr) + join(err), true);
            }
            if (sender.exitValue() != 0) {
                throw new CommandFailedException(first, sender.exitValue(), join(senderErr), false);
            }
            if (receiver.exitValue() != 0) {
                throw new CommandFailedException(second, receiver.exitValue(), join(err), false);
            }
            return new CommandResult(join(out), join(err));
        } catch (InterruptedException e) {
            kill(processes);
            Thread.currentThread().interrupt();
            throw new CommandFailedException(first, -1, "interrupted", true);
        }
    }

    /**
     * Both processes started apart, the first's stdout read here in chunks of {@value #RELAY_CHUNK} bytes and
     * written to the second's stdin. A stop kills only the first and then closes the second's input: the
     * second ends as at the end of a stream cut short (zfs recv -s saves its partial state; killing it
     * instead leaves it unwinding in the kernel for minutes on a slow pool). A watchdog thread kills the first
     * at a stop (a read waiting on it cannot see the stop), and both when no byte moved for the first's
     * timeout (a write to a second stuck on its device).
     */
    @Override
    public Relayed relay(Command first, Command second, Flow flow) {
        Process sender = start(first, NO_INPUT);
        Process receiver;
        try {
            receiver = start(second, ProcessBuilder.Redirect.PIPE);
        } catch (CommandFailedException e) {
            kill(List.of(sender));
            throw e;
        }
        CompletableFuture<String> senderErr = drain(sender.getErrorStream());
        CompletableFuture<String> out = drain(receiver.getInputStream());
        CompletableFuture<String> err = drain(receiver.getErrorStream());
        AtomicLong moved = new AtomicLong(System.nanoTime());
        AtomicBoolean copying = new AtomicBoolean(true);
        AtomicReference<String> ended = new AtomicReference<>();
        Thread watchdog = Thread.ofVirtual().start(() -> {
            while (copying.get()) {
                if (flow.stopped() && ended.compareAndSet(null, "stopped")) {
                    kill(List.of(sender)); // unblocks a read waiting on it; a write to the second finishes first
                } else if (System.nanoTime() - moved.get() > first.timeout().toNanos()) {
                    ended.compareAndSet(null, "stalled");
                    kill(List.of(sender, receiver));
                    return;
                }
                try {
                    Thread.sleep(RELAY_WATCH);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        long bytes = 0;
        boolean whole = false;
        byte[] chunk = new byte[RELAY_CHUNK];
        try (InputStream in = sender.getInputStream(); OutputStream to = receiver.getOutputStream()) {
            int n;
            while (!flow.stopped() && (n = in.read(chunk)) >= 0) {
                to.write(chunk, 0, n);
                bytes += n;
                moved.set(System.nanoTime());
                flow.passed(bytes);
            }
            whole = !flow.stopped();
        } catch (IOException e) {
            // the receiver went (it exited early or was killed), or the sender was killed: its status says which
        } finally {
            copying.set(false);
            watchdog.interrupt();
        }
        if (!whole && flow.stopped()) {
            ended.compareAndSet(null, "stopped");
            kill(List.of(sender)); // its output ends unread: it is not waited for
        }
        long total = bytes;
        try {
            boolean done = receiver.waitFor(second.timeout().toNanos(), TimeUnit.NANOSECONDS)
                    && sender.waitFor(5, TimeUnit.SECONDS);
            ended.compareAndSet(null, done ? "exited" : "stalled");
            if (!done) {
                kill(List.of(sender, receiver));
            }
            if ("stopped".equals(ended.get())) {
                LOG.fine(() -> first + " | " + second + " stopped after " + total + " bytes");
                return new Relayed(total, true);
            }
            if ("stalled".equals(ended.get())) {
                throw new CommandFailedException(first, -1, join(senderErr) + join(err), true);
            }
            // the first's output read to its end: a failure is the first's, or else the second's; cut short:
            // the second stopped reading (the first then died of the broken pipe)
            if (whole && sender.exitValue() != 0) {
                throw new CommandFailedException(first, sender.exitValue(), join(senderErr), false);
            }
            if (receiver.exitValue() != 0) {
                throw new CommandFailedException(second, receiver.exitValue(), join(err), false);
            }
            if (sender.exitValue() != 0) {
                throw new CommandFailedException(first, sender.exitValue(), join(senderErr), false);
            }
            join(out);
            return new Relayed(total, false);
        } catch (InterruptedException e) {
            ended.compareAndSet(null, "interrupted");
            kill(List.of(sender, receiver));
            Thread.currentThread().interrupt();
            throw new CommandFailedException(first, -1, "interrupted", true);
        }
    }

    private static Process start(Command command, ProcessBuilder.Redirect input) {
        try {
            return builder(command, input).start();
        } catch (IOException e) {
            throw new CommandFailedException(command, 127, "cannot start: " + e.getMessage(), false);
        }
    }

    /** The builder of every child: its argv, the C locale (parseable output), {@code input} as its stdin. */
    private static ProcessBuilder builder(Command command, ProcessBuilder.Redirect input) {
        ProcessBuilder builder = new ProcessBuilder(command.argv());
        builder.environment().put("LC_ALL", "C");
        builder.environment().put("LANG", "C");
        return builder.redirectInput(input);
    }

    private static void kill(List<Process> processes) {
        for (Process process : processes) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        try {
            for (Process process : processes) {
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static CompletableFuture<String> drain(InputStream stream) {
        CompletableFuture<String> result = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (stream) {
                ByteArrayOutputStream buffer = new ByteArrayOutputStream();
                byte[] chunk = new byte[8192];
                int n;
                while ((n = stream.read(chunk)) >= 0) {
                    if (buffer.size() < MAX_OUTPUT) {
                        buffer.write(chunk, 0, Math.min(n, MAX_OUTPUT - buffer.size()));
                    }
                }
                result.complete(buffer.toString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                result.completeExceptionally(new UncheckedIOException(e));
            }
        });
        return result;
    }

    private static String join(CompletableFuture<String> stream) {
        try {
            return stream.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
