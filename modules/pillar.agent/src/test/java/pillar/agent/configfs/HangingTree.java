package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A {@link ConfigfsTree} in front of another whose calls on one chosen path block, as a kernel stuck
 * on a hung device does, until {@link #release()}; every other call goes straight through, so that what
 * does not touch the stuck path can be shown to proceed.
 */
final class HangingTree implements ConfigfsTree {
    private final ConfigfsTree tree;
    private final Path stuck;
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    HangingTree(ConfigfsTree tree, Path stuck) {
        this.tree = tree;
        this.stuck = stuck;
    }

    /** Waits until a call has got stuck. */
    void awaitStuck() throws InterruptedException {
        entered.await();
    }

    /** Lets the stuck calls, and any later ones on the path, go on. */
    void release() {
        released.countDown();
    }

    private void maybeHang(Path path) {
        if (path.equals(stuck)) {
            entered.countDown();
            try {
                released.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // a thread in the kernel ignores this; so do we
            }
        }
    }

    @Override
    public Kind kind(Path path) {
        maybeHang(path);
        return tree.kind(path);
    }

    @Override
    public String read(Path attribute) throws IOException {
        maybeHang(attribute);
        return tree.read(attribute);
    }

    @Override
    public void write(Path attribute, String value) throws IOException {
        maybeHang(attribute);
        tree.write(attribute, value);
    }

    @Override
    public void mkdir(Path dir) throws IOException {
        maybeHang(dir);
        tree.mkdir(dir);
    }

    @Override
    public void rmdir(Path dir) throws IOException {
        maybeHang(dir);
        tree.rmdir(dir);
    }

    @Override
    public void symlink(Path link, Path target) throws IOException {
        maybeHang(link);
        tree.symlink(link, target);
    }

    @Override
    public Path readlink(Path link) throws IOException {
        maybeHang(link);
        return tree.readlink(link);
    }

    @Override
    public void unlink(Path link) throws IOException {
        maybeHang(link);
        tree.unlink(link);
    }

    @Override
    public List<Path> list(Path dir) throws IOException {
        maybeHang(dir);
        return tree.list(dir);
    }

    @Override
    public boolean isConfigfs(Path path) {
        maybeHang(path);
        return tree.isConfigfs(path);
    }
}
