package pillar.node.mount;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.node.sys.Syscalls;

/**
 * The host tier's loop devices and cleanup. {@link #requireHost()} fails (never skips) when the
 * tier cannot run: not root, or a tool missing. {@link #close()} unmounts everything below the test's
 * root (newest first, lazily only as a last resort) and detaches every loop device it made, even
 * after a failed test.
 */
public final class HostLoops implements AutoCloseable {
    private static final Duration DEADLINE = Duration.ofSeconds(60);
    private static final ProcessRunner RUN = new SystemProcessRunner();

    private final Path root;
    private final List<Path> loops = new ArrayList<>();

    public HostLoops(Path root) {
        this.root = root;
    }

    /** Fails loudly unless this is root with loop devices and the filesystem tools. */
    public static void requireHost() {
        int uid;
        try {
            uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(uid).as("the host tier (*HostIT) needs root: loop devices, mount(2)").isZero();
        for (String[] tool : new String[][] {{"losetup", "--version"}, {"mkfs.ext4", "-V"}, {"mkfs.xfs", "-V"},
            {"resize2fs"}, {"xfs_growfs", "-V"}, {"blkid", "-V"}, {"blockdev", "--help"}, {"xfs_io", "-V"}}) {
            try {
                RUN.run(Command.of(DEADLINE, tool));
            } catch (CommandFailedException e) {
                // resize2fs and blockdev --help exit non-zero without arguments; only "cannot start" is fatal
                assertThat(e.exitCode()).as(tool[0] + " must be installed for the host tier: " + e.getMessage())
                        .isNotEqualTo(127);
            }
        }
        assertThat(Path.of("/dev/loop-control")).as("loop devices (module loop)").exists();
    }

    /** Whether this process may resize ext4 online (CAP_SYS_RESOURCE, bit 24 of CapEff). */
    public static boolean hasCapSysResource() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("CapEff:")) {
                    return (Long.parseUnsignedLong(line.substring(7).strip(), 16) & (1L << 24)) != 0;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return false;
    }

    /** A loop device over a new sparse file of {@code bytes}. */
    public Path create(String name, long bytes) {
        Path file = root.resolve("backing").resolve(name + ".img");
        setLength(file, bytes);
        Path loop = Path.of(RUN.run(Command.of(DEADLINE, "losetup", "--find", "--show", file.toString())).stdout().strip());
        loops.add(loop);
        return loop;
    }

    /** Grows the file under {@code loop} and tells the loop driver (as a target's revalidate would). */
    public void grow(Path loop, long bytes) {
        String file = RUN.run(Command.of(DEADLINE, "losetup", "--noheadings", "--output", "BACK-FILE", loop.toString()))
                .stdout().strip();
        setLength(Path.of(file), bytes);
        RUN.run(Command.of(DEADLINE, "losetup", "--set-capacity", loop.toString()));
    }

    /** The size the kernel sees for a block device. */
    public static long size(Path device) {
        return Long.parseLong(RUN.run(Command.of(DEADLINE, "blockdev", "--getsize64", device.toString())).stdout().strip());
    }

    public static void run(String... argv) {
        RUN.run(Command.of(DEADLINE, argv));
    }

    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        unmountAllBelow(root, problems);
        for (Path loop : loops) {
            try {
                // the read-only flag of a loop device outlives its detach: leave every one writable
                RUN.run(Command.of(DEADLINE, "blockdev", "--setrw", loop.toString()));
                RUN.run(Command.of(DEADLINE, "losetup", "--detach", loop.toString()));
            } catch (CommandFailedException e) {
                problems.add(e.getMessage());
            }
        }
        loops.clear();
        assertThat(problems).as("cleanup of mounts and loop devices").isEmpty();
    }

    /** Unmounts every mount at or below {@code root}, newest first. */
    public static void unmountAllBelow(Path root, List<String> problems) {
        for (int round = 0; round < 5; round++) {
            List<MountEntry> below;
            try {
                below = MountInfo.parse(Files.readString(Path.of("/proc/self/mountinfo"))).entries().stream()
                        .filter(e -> e.mountPoint().startsWith(root))
                        .sorted(Comparator.comparingInt(MountEntry::id).reversed())
                        .toList();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (below.isEmpty()) {
                return;
            }
            for (MountEntry entry : below) {
                try {
                    Syscalls.umount(entry.mountPoint(), 0);
                } catch (RuntimeException e) {
                    try {
                        Syscalls.umount(entry.mountPoint(), Syscalls.MNT_DETACH);
                        problems.add("had to detach " + entry.mountPoint() + " lazily: " + e.getMessage());
                    } catch (RuntimeException ignored) {
                        // gone with a parent, or retried next round
                    }
                }
            }
        }
        problems.add("mounts are left below " + root);
    }

    private static void setLength(Path file, long bytes) {
        try {
            Files.createDirectories(file.getParent());
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.setLength(bytes);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
