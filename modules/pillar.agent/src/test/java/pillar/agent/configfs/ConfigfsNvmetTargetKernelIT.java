package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NvmetTargetContract} on the real kernel (the qemu VM of {@code dev/kernel-it}), with two loop
 * devices behind the namespaces: the behaviour the fake tier proves is the kernel's. Each test removes
 * what it made.
 */
class ConfigfsNvmetTargetKernelIT extends NvmetTargetContract {
    @TempDir
    static Path work;
    private static Path loop;
    private static Path otherLoop;

    private final ConfigfsTree tree = new KernelConfigfsTree();
    private final ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(KernelBed.CONFIGFS);

    @BeforeAll
    static void bed() throws IOException {
        KernelBed.requireVm();
        loop = KernelBed.loopDevice(work, "target-contract-a", 16L << 20);
        otherLoop = KernelBed.loopDevice(work, "target-contract-b", 16L << 20);
    }

    @AfterEach
    void removeWhatTheTestMade() {
        KernelBed.wipe(tree);
    }

    @AfterAll
    static void detach() {
        KernelBed.detach(loop);
        KernelBed.detach(otherLoop);
    }

    @Override
    ConfigfsNvmetTarget target() {
        return target;
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

    @Override
    Path otherDevice() {
        return otherLoop;
    }
}
