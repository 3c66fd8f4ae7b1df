package pillar.agent.backend.lvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Zeroes a block device range by range with {@code blkdiscard --zeroout --offset O --length L} (BLKZEROOUT: WRITE
 * ZEROES where the device offers it, zero pages otherwise; every byte reads zero afterwards). blkdiscard opens the
 * device exclusively, so a mounted or held device is refused (EBUSY), never zeroed under its holder. Each
 * {@link #chunk} is one command whose deadline is the command timeout plus its length at
 * {@value #FLOOR_MIB_PER_SECOND} MiB/s, so every step is bounded and the caller checkpoints between them
 * ({@link LvmZeroing}).
 */
final class DeviceZeroing {
    /** The slowest zeroing rate taken for alive, in MiB/s. */
    static final long FLOOR_MIB_PER_SECOND = 32;

    private final ProcessRunner runner;
    private final Duration base;

    DeviceZeroing(ProcessRunner runner, Duration base) {
        this.runner = runner;
        this.base = base;
    }

    /** The most a chunk holds: at the floor rate, half a minute of work. */
    static final long MAX_CHUNK = 1L << 30;
    /**
     * The least a chunk holds: each chunk costs a process and the device a round trip, which a small one
     * would pay for little work (a blkdiscard costs about 0.5 s to start in the TCG test VM).
     */
    static final long MIN_CHUNK = 8L << 20;
    /** How many chunks a device is cut into at most, below {@link #MAX_CHUNK} a chunk. */
    static final long CHUNKS = 16;
    private static final long MIB = 1L << 20;

    /**
     * Zeroes bytes {@code [offset, offset + length)} of {@code device} (both multiples of 512; a range past
     * the end stops there); throws the command's failure (a timeout among them).
     */
    void zero(Path device, long offset, long length) {
        runner.run(new Command(List.of("blkdiscard", "--zeroout", "--offset", Long.toString(offset), "--length", Long.toString(length),
                device.toString()), deadline(length)));
    }

    /**
     * The length of the chunks a device of {@code bytes} is zeroed in: a {@value #CHUNKS}th of it in whole
     * MiB, from 8 MiB to 1 GiB (so at most 1 GiB or a 16th of the work is done again after a crash).
     */
    static long chunk(long bytes) {
        long share = (bytes / CHUNKS + MIB - 1) / MIB * MIB;
        return Math.clamp(share, MIN_CHUNK, MAX_CHUNK);
    }

    Duration deadline(long bytes) {
        return deadline(base, bytes);
    }

    /** {@code base} plus {@code bytes} at {@value #FLOOR_MIB_PER_SECOND} MiB/s: the time a pass over that many bytes may take. */
    static Duration deadline(Duration base, long bytes) {
        return base.plusSeconds(bytes / (FLOOR_MIB_PER_SECOND << 20) + 1);
    }

    /** Whether blkdiscard failed because another holder has the device open exclusively. */
    static boolean busy(CommandFailedException e) {
        return e.stderr().contains("Device or resource busy");
    }
}
