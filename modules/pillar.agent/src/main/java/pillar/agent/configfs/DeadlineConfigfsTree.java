package pillar.agent.configfs;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import pillar.runtime.exec.CallBudget;

/**
 * A {@link ConfigfsTree} whose every call returns within a deadline: the call runs on a worker thread
 * and the caller waits at most {@link #deadline()}, or what is left of the call's {@link CallBudget}
 * when less; past it the caller gets a
 * {@link ConfigfsTimeoutException} and the worker is left to the kernel (a thread inside a system call
 * cannot be interrupted; it finishes, or stays, on its own). What such a call changed is unknown, as
 * after any failure: the operations converge when retried. {@link #kind} and {@link #isConfigfs},
 * which cannot fail otherwise, throw a timed-out {@link NvmetTargetException} past the deadline.
 */
final class DeadlineConfigfsTree implements ConfigfsTree {
    /** What one configfs call may take: far beyond the milliseconds a healthy one takes under TCG. */
    static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);

    private final ConfigfsTree tree;
    private final Duration deadline;
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "configfs-call");
        t.setDaemon(true);
        return t;
    });

    DeadlineConfigfsTree(ConfigfsTree tree, Duration deadline) {
        this.tree = tree;
        this.deadline = deadline;
    }

    Duration deadline() {
        return deadline;
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
        Future<T> future = workers.submit(call::run);
        try {
            return future.get(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
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
            Thread.currentThread().interrupt();
            throw new InterruptedIOException(what + " " + path + ": interrupted");
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
