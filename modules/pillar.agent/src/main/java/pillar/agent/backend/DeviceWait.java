package pillar.agent.backend;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Polls for a block device node until a deadline. Device nodes appear asynchronously: a zvol's
 * {@code /dev/zdN} about 0.2 s after {@code zfs create}, an LV's node when LVM (or udev) makes it.
 */
final class DeviceWait {
    private DeviceWait() {
    }

    /**
     * The first path {@code probe} returns before {@code deadline} passes, looking every {@code poll}.
     *
     * @param what names the device in the error, e.g. "zvol tank/k8s/pvc-1"
     * @param hint says what to check when it never appears
     */
    static Path await(String what, Duration deadline, Duration poll, String hint, Supplier<Optional<Path>> probe) {
        long end = System.nanoTime() + deadline.toNanos();
        while (true) {
            Optional<Path> found = probe.get();
            if (found.isPresent()) {
                return found.get();
            }
            if (System.nanoTime() - end >= 0) {
                throw new BackendException(BackendException.Kind.FAILED,
                        "the block device of " + what + " did not appear within " + deadline.toMillis() + " ms (" + hint + ")");
            }
            try {
                Thread.sleep(poll);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new BackendException(BackendException.Kind.FAILED, "interrupted while waiting for the block device of " + what, e);
            }
        }
    }
}
