package pillar.agent.export;

import java.nio.file.Path;

import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.configfs.NvmetTarget;

/** {@link ExporterContract} on the fake configfs tree ({@link FakeConfigfsTree}), two block devices declared. */
class ExporterFakeTest extends ExporterContract {
    private static final Path[] DEVICES = {Path.of("/dev/vg0/contract-export-0"), Path.of("/dev/vg0/contract-export-1")};

    private final FakeConfigfsTree configfs = FakeConfigfsTree.create().addBlockDevice(DEVICES[0]).addBlockDevice(DEVICES[1]);
    private final NvmetTarget target = configfs.target();

    @Override
    protected NvmetTarget target() {
        return target;
    }

    @Override
    protected Path device(int n) {
        return DEVICES[n];
    }
}
