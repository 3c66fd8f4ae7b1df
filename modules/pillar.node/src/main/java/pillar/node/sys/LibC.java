package pillar.node.sys;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * The few C library calls pillar-node makes itself, through JNA. Every call throws
 * {@link LastErrorException} (carrying {@code errno}) when the C function reports failure, so callers
 * never read a stale {@code errno}. Use {@link Syscalls}, which turns these into typed errors.
 */
interface LibC extends Library {
    LibC INSTANCE = Native.load("c", LibC.class);

    int mount(String source, String target, String fsType, long flags, String data) throws LastErrorException;

    int umount2(String target, int flags) throws LastErrorException;

    /** {@code struct statfs} is written into {@code buf}; see {@link FsStats#fromStatfs} for its layout. */
    int statfs(String path, Pointer buf) throws LastErrorException;

    /** glibc 2.33 and newer export {@code stat} itself; only success or errno matters here. */
    int stat(String path, Pointer buf) throws LastErrorException;

    int open(String path, int flags) throws LastErrorException;

    int close(int fd) throws LastErrorException;

    long read(int fd, Pointer buf, long count) throws LastErrorException;

    long write(int fd, Pointer buf, long count) throws LastErrorException;
}
