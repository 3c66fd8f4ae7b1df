package pillar.agent.backend;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Waits on block devices until a deadline. Device nodes appear asynchronously: a zvol's
 * {@code /dev/zdN} about 0.2 s after {@code zfs create}, an LV's node when LVM (or udev) makes it.
 * And a device's last holder may let go a moment after it says it did: udev probes a device its last
 * writer closed, and the kernel may finish releasing an nvmet namespace's device after the namespace
 * is gone; a removal that finds the device busy is tried again for a short while.
 */
public final class DeviceWait {
    /** How long a removal may find a device busy before the failure is reported (at most the device timeout). */
    public static final Duration BUSY_GRACE = Duration.ofSeconds(5);
    public static final Duration BUSY_POLL = Duration.ofMillis(200);

    private DeviceWait() {
    }

    /** One attempt at a removal: empty when done, or the failure to report if the device stays busy. */
    @FunctionalInterface
    public interface Removal {
        Optional<BackendException> attempt();
    }

    /**
     * Attempts {@code removal} until it is done or {@code grace} (capped at {@link #BUSY_GRACE}) has
     * passed, every {@link #BUSY_POLL}; then throws its last busy failure.
     */
    public static void whileBusy(Duration grace, Removal removal) {
        Duration limit = grace.compareTo(BUSY_GRACE) < 0 ? grace : BUSY_GRACE;
        long end = System.nanoTime() + limit.toNanos();
        while (true) {
            Optional<BackendException> busy = removal.attempt();
            if (busy.isEmpty()) {
                return;
            }
            if (System.nanoTime() - end >= 0) {
                throw busy.get();
            }
            try {
                Thread.sleep(BUSY_POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw busy.get();
            }
        }
    }

    /**
     * The first path {@code probe} returns before {@code deadline} passes, looking every {@code poll}.
     *
     * @param what names the device in the error, e.g. "zvol tank/k8s/pvc-1"
     * @param hint says what to check when it never appears
     */
    public static Path await(String what, Duration deadline, Duration poll, String hint, Supplier<Optional<Path>> probe) {
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
