package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import pillar.runtime.metrics.OutcomeTimer;
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
    private final OutcomeTimer timer;

    TimedConfigfsTree(ConfigfsTree tree, WorkloadMetrics metrics) {
        this.tree = tree;
        this.timer = new OutcomeTimer(metrics, SECONDS, "nvmet configfs calls, by operation and outcome", "operation",
                TimedConfigfsTree::timedOut);
    }

    /** Past the deadline: a {@link ConfigfsTimeoutException}, or for lstat and statfs a timed-out {@link NvmetTargetException}. */
    private static boolean timedOut(Exception e) {
        return e instanceof ConfigfsTimeoutException || e instanceof NvmetTargetException t && t.timedOut();
    }

    @Override
    public Kind kind(Path path) {
        return timer.time("lstat", () -> tree.kind(path));
    }

    @Override
    public String read(Path attribute) throws IOException {
        return timer.time("read", () -> tree.read(attribute));
    }

    @Override
    public void write(Path attribute, String value) throws IOException {
        timer.time("write", () -> {
            tree.write(attribute, value);
            return null;
        });
    }

    @Override
    public void mkdir(Path dir) throws IOException {
        timer.time("mkdir", () -> {
            tree.mkdir(dir);
            return null;
        });
    }

    @Override
    public void rmdir(Path dir) throws IOException {
        timer.time("rmdir", () -> {
            tree.rmdir(dir);
            return null;
        });
    }

    @Override
    public void symlink(Path link, Path target) throws IOException {
        timer.time("symlink", () -> {
            tree.symlink(link, target);
            return null;
        });
    }

    @Override
    public Path readlink(Path link) throws IOException {
        return timer.time("readlink", () -> tree.readlink(link));
    }

    @Override
    public void unlink(Path link) throws IOException {
        timer.time("unlink", () -> {
            tree.unlink(link);
            return null;
        });
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        return timer.time("list", () -> tree.list(dir));
    }

    @Override
    public boolean isConfigfs(Path path) {
        return timer.time("statfs", () -> tree.isConfigfs(path));
    }
}
