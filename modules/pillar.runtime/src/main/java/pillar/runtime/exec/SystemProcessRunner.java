package pillar.runtime.exec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * {@link ProcessRunner} on real processes. A child still running at its deadline (the command's, or
 * less when the call's {@link CallBudget} ends sooner) is killed with SIGKILL, its descendants first.
 */
public final class SystemProcessRunner implements ProcessRunner {
    private static final Logger LOG = Logger.getLogger(SystemProcessRunner.class.getName());
    /** More output than any tool we call prints; the rest is dropped so a runaway child cannot exhaust memory. */
    private static final int MAX_OUTPUT = 16 * 1024 * 1024;

    @Override
    public CommandResult run(Command command) {
        Duration timeout = CallBudget.cap(command.timeout());
        if (timeout.isZero()) {
            throw new CommandFailedException(command, -1, "not started: the call's time budget is spent", true);
        }
        ProcessBuilder builder = new ProcessBuilder(command.argv());
        Map<String, String> env = builder.environment();
        env.put("LC_ALL", "C");
        env.put("LANG", "C");
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        long started = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new CommandFailedException(command, 127, "cannot start: " + e.getMessage(), false);
        }
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
