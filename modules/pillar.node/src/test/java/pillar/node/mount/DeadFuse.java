package pillar.node.mount;

import java.nio.file.Path;

import pillar.node.sys.Syscalls;

/**
 * A real corrupted mount without any FUSE helper: opens {@code /dev/fuse}, mounts a FUSE filesystem
 * on that descriptor ({@code fd=N,rootmode=40000}), and closes the descriptor without ever answering
 * the kernel. The connection is then aborted and every access to the mount point fails with
 * ENOTCONN, exactly as after a FUSE daemon died. Needs root.
 */
public final class DeadFuse {
    private DeadFuse() {
    }

    public static void mountAt(Path target) {
        int fd = Syscalls.openReadWrite(Path.of("/dev/fuse"));
        try {
            Syscalls.mount("pillar-dead-fuse", target, "fuse", MountOptions.MS_NOSUID | MountOptions.MS_NODEV,
                    "fd=" + fd + ",rootmode=40000,user_id=0,group_id=0");
        } finally {
            Syscalls.close(fd); // the "daemon" dies: nobody will ever answer
        }
    }
}
