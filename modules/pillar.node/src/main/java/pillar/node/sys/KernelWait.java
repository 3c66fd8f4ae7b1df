package pillar.node.sys;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Waits a bounded time for work that may get stuck in the kernel (a mount, an unmount, a write to
 * {@code /dev/nvme-fabrics}). A syscall in uninterruptible sleep cannot be cancelled, so the work runs
 * on a thread of its own and the caller stops waiting at the deadline ({@link StuckInKernelException},
 * not {@link StuckInKernelException#stillStuck() still stuck}); the thread goes on until the kernel
 * lets it go.
 *
 * <p>Invariant: while a timed-out attempt on a key (a mount point, a subsystem) has not returned,
 * every new call on that key is refused at once ({@link StuckInKernelException#stillStuck()}) without
 * starting anything, so retries never pile up stuck threads; calls on other keys are not affected.
 * The threads are platform threads: a virtual thread stuck in a native call would pin its carrier, and
 * a few of those would stall every virtual thread of the process.
 */
public final class KernelWait {
    private static final Logger LOG = Logger.getLogger(KernelWait.class.getName());

    private final Duration deadline;
    private final ExecutorService threads = Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("kernel-wait-", 0).factory());
    private final Map<String, List<Attempt>> stuck = new HashMap<>();

    /** @param deadline how long one call is waited for */
    public KernelWait(Duration deadline) {
        if (deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("the kernel deadline must be positive, is " + deadline);
        }
        this.deadline = deadline;
    }

    /**
     * Runs {@code work} and returns its result or rethrows its exception, waiting at most the
     * deadline. {@code key} names what the work touches; {@code what} describes it for messages.
     */
    public <T> T call(String key, String what, Supplier<T> work) {
        refuseIfStuck(key, what);
        Instant started = Instant.now();
        CompletableFuture<T> result = CompletableFuture.supplyAsync(work, threads);
        try {
            return result.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            Attempt attempt = new Attempt(what, started);
            markStuck(key, attempt);
            result.whenComplete((value, error) -> {
                release(key, attempt);
                LOG.warning(() -> what + " returned from the kernel after " + Duration.between(started, Instant.now())
                        .toSeconds() + " s" + (error == null ? "" : ": " + error));
            });
            LOG.warning(() -> what + " is stuck in the kernel: no answer within " + seconds());
            throw new StuckInKernelException(what + " did not return within " + seconds()
                    + "; the kernel is still working on it (an unreachable target or a hung device?), and calls on "
                    + key + " answer ABORTED until it returns", false);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(what + " failed", cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StuckInKernelException("interrupted while waiting for " + what, false);
        }
    }

    /** Runs {@code work} as {@link #call} does, for work without a result. */
    public void run(String key, String what, Runnable work) {
        call(key, what, () -> {
            work.run();
            return null;
        });
    }

    /** How many timed-out attempts have not returned yet (for tests and diagnostics). */
    public synchronized int stuckCount() {
        return stuck.values().stream().mapToInt(List::size).sum();
    }

    private synchronized void refuseIfStuck(String key, String what) {
        List<Attempt> attempts = stuck.get(key);
        if (attempts != null) {
            Attempt first = attempts.getFirst();
            throw new StuckInKernelException("not starting " + what + ": " + first.what() + ", started at "
                    + first.started() + ", is still stuck in the kernel; retry later", true);
        }
    }

    private synchronized void markStuck(String key, Attempt attempt) {
        stuck.computeIfAbsent(key, k -> new ArrayList<>()).add(attempt);
    }

    private synchronized void release(String key, Attempt attempt) {
        List<Attempt> attempts = stuck.get(key);
        if (attempts != null && attempts.remove(attempt) && attempts.isEmpty()) {
            stuck.remove(key);
        }
    }

    private String seconds() {
        return deadline.toMillis() % 1000 == 0 ? deadline.toSeconds() + " s" : deadline.toMillis() + " ms";
    }

    /** Identity matters: each timed-out call releases only its own mark. */
    private static final class Attempt {
        private final String what;
        private final Instant started;

        private Attempt(String what, Instant started) {
            this.what = what;
            this.started = started;
        }

        String what() {
            return what;
        }

        Instant started() {
            return started;
        }
    }
}
