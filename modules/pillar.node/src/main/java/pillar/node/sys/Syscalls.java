package pillar.node.sys;

import java.nio.file.Path;
import java.util.Optional;

import com.sun.jna.LastErrorException;
import com.sun.jna.Memory;
import com.sun.jna.Native;

/**
 * Typed wrappers over the C library calls pillar-node makes (64-bit Linux only: the
 * {@code struct statfs} layout below is the LP64 one that x86_64 and aarch64 share). Each failure is
 * a {@link SyscallException} with the call, its subject and the {@link Errno}.
 */
public final class Syscalls {
    /** {@code MNT_DETACH} for {@code umount2}: lazy unmount. */
    public static final int MNT_DETACH = 2;
    private static final int O_RDWR = 2;
    private static final int O_CLOEXEC = 0x80000;
    private static final int STATFS_SIZE = 120;
    private static final int STAT_SIZE = 256; // struct stat is 144 bytes on x86_64, 128 on aarch64

    private Syscalls() {
    }

    private static LibC libc() {
        if (Native.LONG_SIZE != 8) {
            throw new IllegalStateException("pillar-node needs a 64-bit Linux (C long of 8 bytes)");
        }
        return LibC.INSTANCE;
    }

    public static void mount(String source, Path target, String fsType, long flags, String data) {
        try {
            libc().mount(source, target.toString(), fsType, flags, data);
        } catch (LastErrorException e) {
            throw new SyscallException("mount", source + " on " + target
                    + (fsType == null ? "" : " (" + fsType + ")"), new Errno(e.getErrorCode()));
        }
    }

    public static void umount(Path target, int flags) {
        try {
            libc().umount2(target.toString(), flags);
        } catch (LastErrorException e) {
            throw new SyscallException(flags == 0 ? "umount" : "umount2(MNT_DETACH)", target.toString(),
                    new Errno(e.getErrorCode()));
        }
    }

    public static FsStats statfs(Path path) {
        try (Memory buf = new Memory(STATFS_SIZE)) {
            buf.clear();
            try {
                libc().statfs(path.toString(), buf);
            } catch (LastErrorException e) {
                throw new SyscallException("statfs", path.toString(), new Errno(e.getErrorCode()));
            }
            // f_type 0, f_bsize 8, f_blocks 16, f_bfree 24, f_bavail 32, f_files 40, f_ffree 48,
            // f_fsid 56, f_namelen 64, f_frsize 72, f_flags 80
            long frsize = buf.getLong(72);
            return FsStats.of(frsize > 0 ? frsize : buf.getLong(8), buf.getLong(16), buf.getLong(24),
                    buf.getLong(32), buf.getLong(40), buf.getLong(48));
        }
    }

    /** {@code stat(2)} of a path: empty when it succeeds, else the error. Follows symbolic links. */
    public static Optional<Errno> probe(Path path) {
        try (Memory buf = new Memory(STAT_SIZE)) {
            libc().stat(path.toString(), buf);
            return Optional.empty();
        } catch (LastErrorException e) {
            return Optional.of(new Errno(e.getErrorCode()));
        }
    }

    /** Opens a device read-write (close-on-exec); the caller closes the descriptor. */
    public static int openReadWrite(Path path) {
        try {
            return libc().open(path.toString(), O_RDWR | O_CLOEXEC);
        } catch (LastErrorException e) {
            throw new SyscallException("open", path.toString(), new Errno(e.getErrorCode()));
        }
    }

    /** One {@code write(2)} of all of {@code data}; a short write is an error. */
    public static void write(int fd, Path what, byte[] data) {
        try (Memory buf = new Memory(Math.max(1, data.length))) {
            buf.write(0, data, 0, data.length);
            long written = libc().write(fd, buf, data.length);
            if (written != data.length) {
                throw new SyscallException("write", what + " (" + written + " of " + data.length + " bytes)",
                        Errno.EIO);
            }
        } catch (LastErrorException e) {
            throw new SyscallException("write", what.toString(), new Errno(e.getErrorCode()));
        }
    }

    /** One {@code read(2)} of at most {@code max} bytes. */
    public static byte[] read(int fd, Path what, int max) {
        try (Memory buf = new Memory(max)) {
            long n = libc().read(fd, buf, max);
            return buf.getByteArray(0, (int) n);
        } catch (LastErrorException e) {
            throw new SyscallException("read", what.toString(), new Errno(e.getErrorCode()));
        }
    }

    public static void close(int fd) {
        try {
            libc().close(fd);
        } catch (LastErrorException e) {
            // the descriptor is gone either way (close(2) on Linux always releases it)
        }
    }
}
