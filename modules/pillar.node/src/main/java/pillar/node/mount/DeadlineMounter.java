package pillar.node.mount;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import pillar.node.fs.FsType;
import pillar.node.sys.FsStats;
import pillar.node.sys.KernelWait;

/**
 * A {@link Mounter} whose every call is bounded by a {@link KernelWait}, keyed by the mount point:
 * a mount, unmount, probe or statfs stuck in the kernel fails its caller at the deadline, and later
 * calls on the same path are refused until it returns, while other paths go on (a read of the whole
 * table is keyed by the table). Same contract as the mounter it wraps otherwise.
 */
public final class DeadlineMounter implements Mounter {
    private final Mounter kernel;
    private final KernelWait wait;

    public DeadlineMounter(Mounter kernel, KernelWait wait) {
        this.kernel = kernel;
        this.wait = wait;
    }

    @Override
    public void mount(Path device, Path target, FsType fsType, MountOptions options) {
        wait.run(key(target), "the mount of " + device + " at " + target, () -> kernel.mount(device, target, fsType, options));
    }

    @Override
    public void mountNfs(NfsExport export, Path target, MountOptions options) {
        wait.run(key(target), "the mount of " + export.describe() + " at " + target,
                () -> kernel.mountNfs(export, target, options));
    }

    @Override
    public void bind(Path source, Path target, MountOptions options) {
        wait.run(key(target), "the bind mount of " + source + " at " + target, () -> kernel.bind(source, target, options));
    }

    @Override
    public void unmount(Path target) {
        wait.run(key(target), "the unmount of " + target, () -> kernel.unmount(target));
    }

    @Override
    public MountState probe(Path target) {
        return wait.call(key(target), "the probe of " + target, () -> kernel.probe(target));
    }

    @Override
    public Optional<MountEntry> find(Path target) {
        return wait.call(key(target), "the mount table lookup of " + target, () -> kernel.find(target));
    }

    @Override
    public List<MountEntry> table() {
        return wait.call("the mount table", "the read of the mount table", kernel::table);
    }

    @Override
    public FsStats statfs(Path path) {
        return wait.call(key(path), "the statfs of " + path, () -> kernel.statfs(path));
    }

    private static String key(Path path) {
        return "mount point " + path;
    }
}
