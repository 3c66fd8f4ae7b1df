package pillar.node.mount;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import pillar.node.sys.Errno;

/** The fake mounter keeps the contract the real one keeps on the host. */
class FakeMounterTest extends MounterContract {
    @TempDir
    Path dir;
    final FakeMounter mounter = new FakeMounter();

    @BeforeEach
    void setUp() throws Exception {
        runOn(mounter, Files.createFile(dir.resolve("nvme0n1")), dir);
    }

    @Override
    void breakMount(Path target) {
        mounter.corrupt(target, Errno.ENOTCONN);
    }

    @Override
    AutoCloseable makeBusy(Path target) {
        mounter.busy(target);
        return () -> mounter.idle(target);
    }
}
