package pillar.agent.configfs;

import java.io.IOException;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.export.ExporterContract;

/**
 * {@link ExporterContract} on the real kernel (the qemu VM of {@code dev/kernel-it}), as
 * {@link ConfigfsNvmetTargetKernelIT} runs the target's: two loop devices behind the volumes, no host
 * connecting (seconds). Each test removes what it exported, then the contracts' clean-up runs.
 */
class ExporterKernelIT extends ExporterContract {
    @TempDir
    static Path work;
    private static Path[] loops = new Path[2];

    private final ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(KernelBed.CONFIGFS);

    @BeforeAll
    static void bed() throws IOException {
        KernelBed.requireVm();
        loops[0] = KernelBed.loopDevice(work, "export-contract-0", 16L << 20);
        loops[1] = KernelBed.loopDevice(work, "export-contract-1", 16L << 20);
    }

    @AfterEach
    void removeWhatTheTestMade() {
        removeWhatItMade();
        KernelBed.wipe(new KernelConfigfsTree());
    }

    @AfterAll
    static void detach() {
        KernelBed.detach(loops[0]);
        KernelBed.detach(loops[1]);
    }

    @Override
    protected NvmetTarget target() {
        return target;
    }

    @Override
    protected Path device(int n) {
        return loops[n];
    }
}
