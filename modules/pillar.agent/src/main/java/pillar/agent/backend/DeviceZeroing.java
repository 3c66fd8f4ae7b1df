package pillar.agent.backend;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Zeroes a whole block device with {@code blkdiscard --zeroout} (util-linux): the kernel's BLKZEROOUT,
 * which sends WRITE ZEROES where the device offers it ({@code queue/write_zeroes_max_bytes} above 0;
 * device-mapper passes it down to the PVs, a loop device turns it into a fallocate of its file) and
 * writes zero pages otherwise. Either way every byte reads zero afterwards; a plain discard
 * ({@code blkdiscard} without {@code -z}) promises nothing about what a later read returns.
 *
 * <p>blkdiscard opens the device exclusively (util-linux 2.36 and later): a device that is mounted or
 * otherwise held exclusively is refused with EBUSY, never zeroed under its holder.
 *
 * <p>Deadline: the command timeout plus the size at {@value #FLOOR_MIB_PER_SECOND} MiB/s, so a large
 * volume gets the time a slow disk needs and a hung one is killed.
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

    /** Zeroes all of {@code device}, {@code bytes} long; throws the command's failure (a timeout among them). */
    void zero(Path device, long bytes) {
        runner.run(new Command(List.of("blkdiscard", "--zeroout", device.toString()), deadline(bytes)));
    }

    Duration deadline(long bytes) {
        return deadline(base, bytes);
    }

    /** {@code base} plus {@code bytes} at {@value #FLOOR_MIB_PER_SECOND} MiB/s: the time a whole pass over a device may take. */
    static Duration deadline(Duration base, long bytes) {
        return base.plusSeconds(bytes / (FLOOR_MIB_PER_SECOND << 20) + 1);
    }

    /** Whether blkdiscard failed because another holder has the device open exclusively. */
    static boolean busy(CommandFailedException e) {
        return e.stderr().contains("Device or resource busy");
    }
}
