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

    @org.junit.jupiter.api.Test
    void anNfsMountListsAsTheKernelClientListsIt() throws Exception {
        Path target = Files.createDirectories(dir.resolve("nfs"));
        NfsExport export = new NfsExport("10.77.0.1", "/tank/v1", "10.77.1.2");
        mounter.mountNfs(export, target, MountOptions.parseForNfs(java.util.List.of("noatime")));
        MountEntry entry = mounter.find(target).orElseThrow();
        org.assertj.core.api.Assertions.assertThat(entry.fsType()).isEqualTo("nfs4");
        org.assertj.core.api.Assertions.assertThat(entry.source()).isEqualTo("10.77.0.1:/tank/v1");
        org.assertj.core.api.Assertions.assertThat(export.matches(entry)).isTrue();
        org.assertj.core.api.Assertions.assertThat(new NfsExport("10.77.0.1", "/tank/v1", "10.77.2.2").matches(entry)).isFalse();
        mounter.unmount(target);
        org.assertj.core.api.Assertions.assertThat(mounter.find(target)).isEmpty();
    }

    @org.junit.jupiter.api.Test
    void aRefusedNfsMountChangesNothing() throws Exception {
        Path target = Files.createDirectories(dir.resolve("nfs"));
        mounter.refuseNfs("10.77.0.1:/tank/v1", Errno.EACCES);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> mounter.mountNfs(
                new NfsExport("10.77.0.1", "/tank/v1", "10.77.1.2"), target, MountOptions.NONE))
                .isInstanceOf(pillar.node.sys.SyscallException.class);
        org.assertj.core.api.Assertions.assertThat(mounter.find(target)).isEmpty();
    }
}
