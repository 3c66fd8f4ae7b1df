package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ConfigfsTreeContract} on the real kernel (the qemu VM of {@code dev/kernel-it}): what the fake
 * tree models is what Debian's 6.1 kernel does. Each test removes what it made.
 */
class ConfigfsTreeKernelIT extends ConfigfsTreeContract {
    @TempDir
    static Path work;
    private static Path loop;

    private final ConfigfsTree tree = new KernelConfigfsTree();

    @BeforeAll
    static void bed() throws IOException {
        KernelBed.requireVm();
        loop = KernelBed.loopDevice(work, "tree-contract", 16L << 20);
    }

    @AfterEach
    void removeWhatTheTestMade() {
        KernelBed.wipe(tree);
    }

    @AfterAll
    static void detach() {
        KernelBed.detach(loop);
    }

    @Override
    ConfigfsTree tree() {
        return tree;
    }

    @Override
    Path configfs() {
        return KernelBed.CONFIGFS;
    }

    @Override
    Path device() {
        return loop;
    }
}
