package pillar.node.fs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * The filesystem tools, each an argument list with a deadline through the {@link ProcessRunner}:
 * {@code blkid -p} to probe, {@code mkfs.ext4}/{@code mkfs.xfs} to format, {@code resize2fs} and
 * {@code xfs_growfs} to grow online, {@code blockdev} for a device's size and read-only flag. Failures are
 * the runner's {@link CommandFailedException} (exit code and stderr).
 */
public final class FilesystemTools {
    /** {@code blkid}'s exit status when it found nothing on the device. */
    static final int BLKID_NOTHING_FOUND = 2;
    private static final Duration PROBE = Duration.ofSeconds(30);
    /** mkfs discards the whole device first, which takes a while on large thin volumes. */
    private static final Duration MKFS = Duration.ofMinutes(10);
    private static final Duration GROW = Duration.ofMinutes(5);

    private final ProcessRunner runner;

    public FilesystemTools(ProcessRunner runner) {
        this.runner = runner;
    }

    /**
     * What is on {@code device}. Blank only when blkid positively says it found nothing (exit 2);
     * any other failure (unreadable device, ambivalent probe) is thrown, so mkfs never runs on a
     * device we could not read.
     */
    public DeviceContent probe(Path device) {
        String out;
        try {
            out = runner.run(Command.of(PROBE, "blkid", "-p", "-o", "export", device.toString())).stdout();
        } catch (CommandFailedException e) {
            if (e.exitCode() == BLKID_NOTHING_FOUND && !e.timedOut()) {
                return DeviceContent.BLANK;
            }
            throw e;
        }
        Optional<String> type = Optional.empty();
        Optional<String> partitionTable = Optional.empty();
        for (String line : out.split("\n")) {
            if (line.startsWith("TYPE=")) {
                type = Optional.of(line.substring(5).strip());
            } else if (line.startsWith("PTTYPE=")) {
                partitionTable = Optional.of(line.substring(7).strip());
            }
        }
        if (type.isEmpty() && partitionTable.isEmpty()) {
            // blkid succeeded but named nothing we understand: not blank, as far as we can tell
            type = Optional.of("unknown (blkid: " + out.strip().replace('\n', ' ') + ")");
        }
        return new DeviceContent(type, partitionTable);
    }

    /** Makes a filesystem on a device the caller has probed blank. */
    public void format(Path device, FsType fsType, MkfsOptions options) {
        List<String> argv = new ArrayList<>();
        argv.add(fsType.mkfsProgram());
        argv.add("-q");
        argv.addAll(options.arguments());
        argv.add(device.toString());
        runner.run(new Command(argv, MKFS));
    }

    /**
     * Grows the filesystem mounted at {@code mountPoint} on {@code device} to the device's size,
     * online. Idempotent: a filesystem that already fills its device is left as it is.
     */
    public void grow(FsType fsType, Path device, Path mountPoint) {
        switch (fsType) {
            case EXT4 -> runner.run(Command.of(GROW, "resize2fs", device.toString()));
            case XFS -> runner.run(Command.of(GROW, "xfs_growfs", "-d", mountPoint.toString()));
        }
    }

    /**
     * Makes a block device refuse writes ({@code blockdev --setro}): a read-only bind mount does not
     * stop writes through a device node, the device's own flag does.
     */
    public void setReadOnly(Path device) {
        runner.run(Command.of(PROBE, "blockdev", "--setro", device.toString()));
    }

    /** Undoes {@link #setReadOnly}. */
    public void setReadWrite(Path device) {
        runner.run(Command.of(PROBE, "blockdev", "--setrw", device.toString()));
    }

    /** The size of a block device in bytes. */
    public long deviceSize(Path device) {
        String out = runner.run(Command.of(PROBE, "blockdev", "--getsize64", device.toString())).stdout().strip();
        try {
            return Long.parseLong(out);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("blockdev --getsize64 " + device + " printed '" + out + "', not a size", e);
        }
    }
}
