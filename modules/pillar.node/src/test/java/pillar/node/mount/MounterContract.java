package pillar.node.mount;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import pillar.node.fs.FsType;
import pillar.node.sys.Errno;
import pillar.node.sys.SyscallException;

/**
 * What every {@link Mounter} does, run against the real one on the host ({@link JnaMounterHostIT})
 * and against {@link FakeMounter} ({@link FakeMounterTest}), so the fake the service tests use
 * behaves like the kernel where it matters.
 */
abstract class MounterContract {
    private Mounter mounter;
    private Path device;
    private Path dir;

    /**
     * What the contract runs on, set by the subclass before each test: the mounter, a device holding
     * an ext4 filesystem, and an empty directory for mount points.
     */
    void runOn(Mounter mounter, Path device, Path dir) {
        this.mounter = mounter;
        this.device = device;
        this.dir = dir;
    }

    /** Breaks the mount at {@code target} so that a stat of it fails (ENOTCONN or EIO). */
    abstract void breakMount(Path target) throws Exception;

    /** Keeps the mount at {@code target} busy until the returned handle is closed. */
    abstract AutoCloseable makeBusy(Path target) throws Exception;

    Path mountPoint(String name) throws Exception {
        return Files.createDirectories(dir.resolve(name));
    }

    @Test
    void mountFindProbeAndUnmountIdempotently() throws Exception {
        Path a = mountPoint("a");
        mounter.mount(device, a, FsType.EXT4, MountOptions.parse(java.util.List.of("noatime"), FsType.EXT4));
        assertThat(mounter.find(a)).get().satisfies(e -> {
            assertThat(e.fsType()).isEqualTo("ext4");
            assertThat(e.source()).isEqualTo(device.toString());
            assertThat(e.readOnly()).isFalse();
        });
        assertThat(mounter.probe(a)).isEqualTo(MountState.MOUNTED);
        assertThat(mounter.table()).filteredOn(e -> e.mountPoint().equals(a)).containsExactly(mounter.find(a).get());
        assertThat(mounter.statfs(a).totalBytes()).isPositive();
        assertThat(mounter.statfs(a).totalInodes()).isPositive();
        mounter.unmount(a);
        assertThat(mounter.probe(a)).isEqualTo(MountState.NOT_MOUNTED);
        assertThat(mounter.table()).noneMatch(e -> e.mountPoint().equals(a));
        mounter.unmount(a);
        mounter.unmount(dir.resolve("never/existed"));
        assertThat(mounter.probe(dir.resolve("never/existed"))).isEqualTo(MountState.NOT_MOUNTED);
    }

    @Test
    void aReadOnlyBindAndStackedMountsAllGo() throws Exception {
        Path a = mountPoint("a");
        Path b = mountPoint("b");
        mounter.mount(device, a, FsType.EXT4, MountOptions.NONE);
        mounter.bind(a, b, MountOptions.NONE.withReadOnly());
        mounter.bind(a, b, MountOptions.NONE);
        assertThat(mounter.find(b)).get().satisfies(e -> assertThat(e.readOnly()).isFalse());
        mounter.unmount(b);
        assertThat(mounter.probe(b)).isEqualTo(MountState.NOT_MOUNTED);
        mounter.bind(a, b, MountOptions.NONE.withReadOnly());
        assertThat(mounter.find(b)).get().satisfies(e -> assertThat(e.readOnly()).isTrue());
        assertThat(mounter.find(a)).get().satisfies(e -> assertThat(e.readOnly()).isFalse());
        mounter.unmount(b);
        mounter.unmount(a);
        assertThat(mounter.probe(a)).isEqualTo(MountState.NOT_MOUNTED);
    }

    @Test
    void aCorruptedMountCountsAsMountedAndIsUnmounted() throws Exception {
        Path a = mountPoint("a");
        mounter.mount(device, a, FsType.EXT4, MountOptions.NONE);
        breakMount(a);
        assertThat(mounter.probe(a)).isEqualTo(MountState.CORRUPTED);
        assertThatThrownBy(() -> mounter.statfs(a)).isInstanceOfSatisfying(SyscallException.class,
                e -> assertThat(e.errno().meansCorruptedMount()).isTrue());
        mounter.unmount(a);
        assertThat(mounter.probe(a)).isEqualTo(MountState.NOT_MOUNTED);
    }

    @Test
    void aHealthyBusyMountIsNotDetached() throws Exception {
        Path a = mountPoint("a");
        mounter.mount(device, a, FsType.EXT4, MountOptions.NONE);
        try (AutoCloseable busy = makeBusy(a)) {
            assertThatThrownBy(() -> mounter.unmount(a)).isInstanceOfSatisfying(SyscallException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EBUSY));
            assertThat(mounter.probe(a)).isEqualTo(MountState.MOUNTED);
        }
        mounter.unmount(a);
        assertThat(mounter.probe(a)).isEqualTo(MountState.NOT_MOUNTED);
    }

    @Test
    void mountingOntoNothingFails() {
        assertThatThrownBy(() -> mounter.mount(device, dir.resolve("missing"), FsType.EXT4, MountOptions.NONE))
                .isInstanceOfSatisfying(SyscallException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ENOENT));
    }
}
