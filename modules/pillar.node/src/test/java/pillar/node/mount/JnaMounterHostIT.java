package pillar.node.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.node.fs.FsType;
import pillar.node.sys.Errno;
import pillar.node.sys.Syscalls;

/**
 * The real mounter on this host's kernel (root, loop devices): the shared contract, plus the two
 * real ways a mount goes bad: a FUSE filesystem whose daemon died (ENOTCONN) and an xfs filesystem
 * in kernel shutdown (EIO), busy or not.
 */
class JnaMounterHostIT extends MounterContract {
    @TempDir
    Path dir;
    HostLoops loops;
    final JnaMounter mounter = new JnaMounter(Path.of("/proc/self/mountinfo"));

    @BeforeAll
    static void onlyOnAHost() {
        HostLoops.requireHost();
        assertThat(Path.of("/dev/fuse")).as("/dev/fuse (module fuse) for the dead-FUSE corrupted mount").exists();
    }

    @BeforeEach
    void setUp() {
        loops = new HostLoops(dir);
        Path device = loops.create("ext4", 64L << 20);
        HostLoops.run("mkfs.ext4", "-q", device.toString());
        runOn(mounter, device, dir.resolve("mnt"));
    }

    @AfterEach
    void cleanUp() {
        loops.close();
    }

    @Override
    void breakMount(Path target) {
        DeadFuse.mountAt(target);
    }

    @Override
    AutoCloseable makeBusy(Path target) throws Exception {
        return FileChannel.open(target.resolve("open-file"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    @Test
    void aDeadFuseDaemonAnswersEnotconnAndIsUnmounted() throws Exception {
        Path a = mountPoint("fuse");
        DeadFuse.mountAt(a);
        assertThat(Syscalls.probe(a)).contains(Errno.ENOTCONN);
        assertThat(mounter.find(a)).get().extracting(MountEntry::fsType).isEqualTo("fuse");
        assertThat(mounter.probe(a)).isEqualTo(MountState.CORRUPTED);
        mounter.unmount(a);
        assertThat(mounter.probe(a)).isEqualTo(MountState.NOT_MOUNTED);
        assertThat(Syscalls.probe(a)).isEmpty();
    }

    @Test
    void anXfsInKernelShutdownAnswersEioAndIsUnmountedEvenWhenBusy() throws Exception {
        Path xfs = loops.create("xfs", 320L << 20);
        HostLoops.run("mkfs.xfs", "-q", xfs.toString());
        Path a = mountPoint("xfs");
        mounter.mount(xfs, a, FsType.XFS, MountOptions.NONE);
        try (FileChannel open = FileChannel.open(a.resolve("data"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            HostLoops.run("xfs_io", "-x", "-c", "shutdown", a.toString());
            assertThat(Syscalls.probe(a)).contains(Errno.EIO);
            assertThat(mounter.probe(a)).isEqualTo(MountState.CORRUPTED);
            mounter.unmount(a); // busy and corrupted: the documented lazy fallback
            assertThat(mounter.find(a)).isEqualTo(Optional.empty());
        }
        assertThat(mounter.probe(a)).isEqualTo(MountState.NOT_MOUNTED);
        assertThat(Files.list(a)).isEmpty();
    }
}
