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
    FakeMounter mounter;
    Path device;

    @BeforeEach
    void setUp() throws Exception {
        mounter = new FakeMounter();
        device = Files.createFile(dir.resolve("nvme0n1"));
    }

    @Override
    Mounter mounter() {
        return mounter;
    }

    @Override
    Path device() {
        return device;
    }

    @Override
    Path dir() {
        return dir;
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
