package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import io.prometheus.metrics.core.metrics.Histogram;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * A {@link ConfigfsTree} that times every call into {@value #SECONDS}, labelled {@code operation}, the
 * system call (lstat, read, write, mkdir, rmdir, symlink, readlink, unlink, list, statfs; never the
 * path), and {@code outcome}: {@code ok}, {@code failed}, or {@code timeout} when the
 * {@link DeadlineConfigfsTree} behind it gave up waiting for the kernel.
 */
final class TimedConfigfsTree implements ConfigfsTree {
    static final String SECONDS = "pillar_agent_configfs_seconds";

    private final ConfigfsTree tree;
    private final Histogram seconds;

    TimedConfigfsTree(ConfigfsTree tree, WorkloadMetrics metrics) {
        this.tree = tree;
        this.seconds = metrics.histogram(SECONDS, "nvmet configfs calls, by operation and outcome", "operation", "outcome");
    }

    @FunctionalInterface
    private interface Call<T, E extends Exception> {
        T run() throws E;
    }

    private <T, E extends Exception> T timed(String operation, Call<T, E> call) throws E {
        long started = System.nanoTime();
        String outcome = "failed";
        try {
            T result = call.run();
            outcome = "ok";
            return result;
        } catch (Exception e) {
            outcome = timedOut(e) ? "timeout" : "failed";
            throw e;
        } finally {
            seconds.labelValues(operation, outcome).observe((System.nanoTime() - started) / 1e9);
        }
    }

    /** Past the deadline: a {@link ConfigfsTimeoutException}, or for lstat and statfs a timed-out {@link NvmetTargetException}. */
    private static boolean timedOut(Exception e) {
        return e instanceof ConfigfsTimeoutException || e instanceof NvmetTargetException t && t.timedOut();
    }

    @Override
    public Kind kind(Path path) {
        return timed("lstat", () -> tree.kind(path));
    }

    @Override
    public String read(Path attribute) throws IOException {
        return timed("read", () -> tree.read(attribute));
    }

    @Override
    public void write(Path attribute, String value) throws IOException {
        timed("write", () -> {
            tree.write(attribute, value);
            return null;
        });
    }

    @Override
    public void mkdir(Path dir) throws IOException {
        timed("mkdir", () -> {
            tree.mkdir(dir);
            return null;
        });
    }

    @Override
    public void rmdir(Path dir) throws IOException {
        timed("rmdir", () -> {
            tree.rmdir(dir);
            return null;
        });
    }

    @Override
    public void symlink(Path link, Path target) throws IOException {
        timed("symlink", () -> {
            tree.symlink(link, target);
            return null;
        });
    }

    @Override
    public Path readlink(Path link) throws IOException {
        return timed("readlink", () -> tree.readlink(link));
    }

    @Override
    public void unlink(Path link) throws IOException {
        timed("unlink", () -> {
            tree.unlink(link);
            return null;
        });
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        return timed("list", () -> tree.list(dir));
    }

    @Override
    public boolean isConfigfs(Path path) {
        return timed("statfs", () -> tree.isConfigfs(path));
    }
}
