package pillar.agent.configfs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import pillar.runtime.exec.CallBudget;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * A {@link ConfigfsTree} whose every call returns within a deadline: the call runs on one of a fixed
 * pool of {@link #WORKERS} worker threads and the caller waits at most {@link #deadline()}, or what is
 * left of the call's {@link CallBudget} when less (the time it waited for a worker included); past it
 * the caller gets a {@link ConfigfsTimeoutException} and the worker is left to the kernel (a thread
 * inside a system call cannot be interrupted; it finishes, or stays, on its own). Such a call is
 * counted as stuck until its worker returns ({@link #stuck()}, the gauge {@value #STUCK}); while every
 * worker is stuck a call is refused at once with a {@link ConfigfsTimeoutException} rather than
 * queued, so a hung kernel costs at most {@link #WORKERS} threads, never one per attempt. What such
 * a call changed is unknown, as after any failure: the operations converge when retried.
 * {@link #kind} and {@link #isConfigfs}, which cannot fail otherwise, throw a timed-out
 * {@link NvmetTargetException} past the deadline.
 */
final class DeadlineConfigfsTree implements ConfigfsTree {
    /** What one configfs call may take: far beyond the milliseconds a healthy one takes under TCG. */
    static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);
    /** The worker threads: calls into configfs at once, stuck ones included. */
    static final int WORKERS = 8;
    /** The gauge of the calls whose caller gave up and whose worker is still inside the kernel. */
    static final String STUCK = "pillar_agent_configfs_stuck_calls";

    private final ConfigfsTree tree;
    private final Duration deadline;
    private final int workers;
    private final AtomicInteger stuck = new AtomicInteger();
    private final ExecutorService pool;

    DeadlineConfigfsTree(ConfigfsTree tree, Duration deadline) {
        this(tree, deadline, WORKERS);
    }

    DeadlineConfigfsTree(ConfigfsTree tree, Duration deadline, int workers) {
        this.tree = tree;
        this.deadline = deadline;
        this.workers = workers;
        this.pool = new ThreadPoolExecutor(workers, workers, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "configfs-call");
            t.setDaemon(true);
            return t;
        });
    }

    /** {@link #DeadlineConfigfsTree(ConfigfsTree, Duration)} with its stuck calls served as the gauge {@value #STUCK}. */
    DeadlineConfigfsTree(ConfigfsTree tree, Duration deadline, WorkloadMetrics metrics) {
        this(tree, deadline);
        metrics.gauge(STUCK, "nvmet configfs calls past their deadline whose thread is still inside the kernel"
                + " (at " + WORKERS + " every configfs call is refused until one returns)", callback -> callback.call(stuck.get()));
    }

    Duration deadline() {
        return deadline;
    }

    /** The calls past their deadline whose worker has not returned from the kernel yet. */
    int stuck() {
        return stuck.get();
    }

    @FunctionalInterface
    private interface Call<T> {
        T run() throws IOException;
    }

    private <T> T bounded(String what, Path path, Call<T> call) throws IOException {
        Duration wait = CallBudget.cap(deadline);
        if (wait.isZero()) {
            throw new ConfigfsTimeoutException(what, path, wait);
        }
        if (stuck.get() >= workers) {
            throw new ConfigfsTimeoutException(what + " " + path + " refused: all " + workers + " configfs worker threads"
                    + " are stuck in the kernel (a hung backing device or a controller being torn down; dmesg tells)");
        }
        Attempt<T> attempt = new Attempt<>(call);
        Future<T> future = pool.submit(attempt::run);
        try {
            return future.get(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            attempt.abandon();
            throw new ConfigfsTimeoutException(what, path, wait);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        } catch (CancellationException e) {
            throw new ConfigfsTimeoutException(what, path, deadline);
        } catch (InterruptedException e) {
            attempt.abandon();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(what + " " + path + ": interrupted");
        }
    }

    /**
     * One call on a worker: abandoned before it started, it never starts; abandoned while it runs, it
     * counts as stuck until it returns.
     */
    private final class Attempt<T> {
        private final Call<T> call;
        private boolean started;
        private boolean finished;
        private boolean abandoned;

        Attempt(Call<T> call) {
            this.call = call;
        }

        T run() throws IOException {
            synchronized (this) {
                if (abandoned) {
                    return null;
                }
                started = true;
            }
            try {
                return call.run();
            } finally {
                synchronized (this) {
                    finished = true;
                    if (abandoned) {
                        stuck.decrementAndGet();
                    }
                }
            }
        }

        synchronized void abandon() {
            if (abandoned) {
                return;
            }
            abandoned = true;
            if (started && !finished) {
                stuck.incrementAndGet();
            }
        }
    }

    @Override
    public Kind kind(Path path) {
        return unfailing("lstat", path, () -> tree.kind(path));
    }

    @Override
    public String read(Path attribute) throws IOException {
        return bounded("read", attribute, () -> tree.read(attribute));
    }

    @Override
    public void write(Path attribute, String value) throws IOException {
        bounded("write", attribute, () -> {
            tree.write(attribute, value);
            return null;
        });
    }

    @Override
    public void mkdir(Path dir) throws IOException {
        bounded("mkdir", dir, () -> {
            tree.mkdir(dir);
            return null;
        });
    }

    @Override
    public void rmdir(Path dir) throws IOException {
        bounded("rmdir", dir, () -> {
            tree.rmdir(dir);
            return null;
        });
    }

    @Override
    public void symlink(Path link, Path target) throws IOException {
        bounded("symlink", link, () -> {
            tree.symlink(link, target);
            return null;
        });
    }

    @Override
    public Path readlink(Path link) throws IOException {
        return bounded("readlink", link, () -> tree.readlink(link));
    }

    @Override
    public void unlink(Path link) throws IOException {
        bounded("unlink", link, () -> {
            tree.unlink(link);
            return null;
        });
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        return bounded("list", dir, () -> tree.list(dir));
    }

    @Override
    public boolean isConfigfs(Path path) {
        return unfailing("statfs", path, () -> tree.isConfigfs(path));
    }

    /**
     * A call that cannot fail ({@link #kind}, {@link #isConfigfs}) past its deadline: an answer such as
     * "absent" would be a lie the caller acts on (a removal that returns early), so it throws.
     */
    private <T> T unfailing(String what, Path path, Call<T> call) {
        try {
            return bounded(what, path, call);
        } catch (ConfigfsTimeoutException e) {
            throw new NvmetTargetException("cannot " + what + " " + path + ": " + e.getMessage(), path, Errno.OTHER, e);
        } catch (IOException e) {
            throw new IllegalStateException(e); // the tree's kind and isConfigfs throw none
        }
    }
}
