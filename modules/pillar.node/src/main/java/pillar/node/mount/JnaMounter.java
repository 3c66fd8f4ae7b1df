package pillar.node.mount;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.node.fs.FsType;
import pillar.node.sys.Errno;
import pillar.node.sys.FsStats;
import pillar.node.sys.SyscallException;
import pillar.node.sys.Syscalls;

/** {@link Mounter} on the real kernel: {@code mount(2)}, {@code umount2(2)}, {@code statfs(2)} through JNA. */
public final class JnaMounter implements Mounter {
    private static final Logger LOG = Logger.getLogger(JnaMounter.class.getName());
    /** More mounts stacked at one path than any retry of ours could leave. */
    private static final int MAX_STACKED = 16;

    private final Path mountinfo;

    /** @param mountinfo the mount table to read, normally {@code /proc/self/mountinfo} */
    public JnaMounter(Path mountinfo) {
        this.mountinfo = mountinfo;
    }

    @Override
    public void mount(Path device, Path target, FsType fsType, MountOptions options) {
        Syscalls.mount(device.toString(), target, fsType.kernelName(), options.flags(), options.dataString());
    }

    @Override
    public void mountNfs(NfsExport export, Path target, MountOptions options) {
        Syscalls.mount(export.source(), target, NfsExport.FS_TYPE, nfsFlags(options), export.data());
    }

    /** The flags of an NFS mount: per-mount flags only; any filesystem data is a caller's bug. */
    static long nfsFlags(MountOptions options) {
        if (!options.data().isEmpty()) {
            throw new IllegalArgumentException("an NFS mount takes no filesystem options: " + options.data());
        }
        return options.perMountFlags();
    }

    @Override
    public void bind(Path source, Path target, MountOptions options) {
        Syscalls.mount(source.toString(), target, null, MountOptions.MS_BIND, null);
        long flags = options.perMountFlags();
        if (flags == 0) {
            return;
        }
        try {
            Syscalls.mount("none", target, null, MountOptions.MS_REMOUNT | MountOptions.MS_BIND | flags, null);
        } catch (SyscallException e) {
            try {
                Syscalls.umount(target, 0);
            } catch (SyscallException undo) {
                e.addSuppressed(undo);
            }
            throw e;
        }
    }

    @Override
    public void unmount(Path target) {
        for (int i = 0; i < MAX_STACKED; i++) {
            MountState state = probe(target);
            if (!state.isMounted()) {
                return;
            }
            try {
                Syscalls.umount(target, 0);
            } catch (SyscallException e) {
                Errno errno = e.errno();
                if (errno.equals(Errno.EINVAL) || errno.equals(Errno.ENOENT)) {
                    if (find(target).isEmpty()) {
                        return; // a broken path that is not a mount point itself: nothing to unmount here
                    }
                    throw e;
                }
                if (errno.equals(Errno.EBUSY) && state == MountState.CORRUPTED) {
                    LOG.warning(() -> "corrupted mount " + target + " is busy; detaching it lazily (MNT_DETACH)");
                    Syscalls.umount(target, Syscalls.MNT_DETACH);
                } else {
                    throw e;
                }
            }
        }
        throw new SyscallException("umount", target + " (still mounted after " + MAX_STACKED + " unmounts)",
                Errno.EBUSY);
    }

    @Override
    public MountState probe(Path target) {
        Optional<Errno> error = Syscalls.probe(target);
        if (error.isPresent() && error.get().meansCorruptedMount()) {
            return MountState.CORRUPTED;
        }
        return find(target).isPresent() ? MountState.MOUNTED : MountState.NOT_MOUNTED;
    }

    @Override
    public Optional<MountEntry> find(Path target) {
        return mountInfo().topAt(target);
    }

    @Override
    public List<MountEntry> table() {
        return mountInfo().entries();
    }

    @Override
    public FsStats statfs(Path path) {
        return Syscalls.statfs(path);
    }

    private MountInfo mountInfo() {
        try {
            return MountInfo.parse(Files.readString(mountinfo));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the mount table " + mountinfo, e);
        }
    }
}
