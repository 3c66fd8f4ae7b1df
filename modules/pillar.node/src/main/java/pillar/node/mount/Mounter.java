package pillar.node.mount;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import pillar.node.fs.FsType;
import pillar.node.sys.FsStats;
import pillar.node.sys.SyscallException;

/**
 * The host's mount table: mount, bind, unmount, probe, statfs. The port every mount decision goes
 * through; {@link JnaMounter} is the real one.
 *
 * <p>Errors: every method throws {@link SyscallException} with the kernel's error number when the
 * kernel refuses. Idempotency: {@link #mount} and {@link #bind} stack a second mount when called
 * twice, so callers decide from {@link #find} first; {@link #unmount} is idempotent.
 */
public interface Mounter {
    /** Mounts the filesystem of type {@code fsType} on {@code device} at the directory {@code target}. */
    void mount(Path device, Path target, FsType fsType, MountOptions options);

    /**
     * Mounts the NFSv4.2 export at the directory {@code target} with the kernel's own client (type
     * {@link NfsExport#FS_TYPE}, source {@link NfsExport#source}, data {@link NfsExport#data}; no
     * mount.nfs helper). Only the per-mount flags of {@code options} apply; filesystem data is refused.
     */
    void mountNfs(NfsExport export, Path target, MountOptions options);

    /**
     * Bind mounts {@code source} (a directory, or a device node) at {@code target} (a directory, or a
     * file for a device). The per-mount flags of {@code options} (read-only, nodev, ...) are applied
     * by a remount; if that fails, the bind mount is undone, so a mount that should be read-only
     * never stays writable.
     */
    void bind(Path source, Path target, MountOptions options);

    /**
     * Unmounts everything stacked at {@code target}. Idempotent: nothing mounted is success. A
     * corrupted mount ({@link MountState#CORRUPTED}) is unmounted too; if the kernel refuses a normal
     * unmount of a corrupted mount as busy, it is detached lazily ({@code MNT_DETACH}), the only case
     * a lazy unmount is used. A healthy busy mount is an error (EBUSY): detaching it would hide a
     * filesystem still in use.
     */
    void unmount(Path target);

    /** Whether something is mounted at {@code target}, and whether it answers. Never throws for a missing path. */
    MountState probe(Path target);

    /** The mount on top at {@code target}, from the mount table. */
    Optional<MountEntry> find(Path target);

    /** The whole mount table, in mount order: one read of it, for counting many mount points at once. */
    List<MountEntry> table();

    /** Space and inodes of the filesystem mounted at (or containing) {@code path}. */
    FsStats statfs(Path path);
}
