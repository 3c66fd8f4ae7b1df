package pillar.runtime.server;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

import pillar.api.value.VolumeId;

/**
 * One CSI operation per volume at a time, never waiting: a second call on a volume that has one in
 * flight is ABORTED at once (the CSI spec's "operation pending for volume") and the CO retries it
 * later; calls on other volumes are not held up (one entry per volume in flight, no global lock).
 * Only the call that took a volume releases it.
 */
public final class VolumeLocks {
    private final ConcurrentMap<VolumeId, Holder> inFlight = new ConcurrentHashMap<>();

    /** Runs {@code action} holding {@code volume}, or throws ABORTED naming the {@code operation} that holds it. */
    public <T> T run(VolumeId volume, String operation, Supplier<T> action) {
        Holder mine = new Holder(operation);
        Holder holder = inFlight.putIfAbsent(volume, mine);
        if (holder != null) {
            throw CsiException.aborted("an operation (" + holder.operation + ") is already in progress for volume " + volume
                    + "; retry later");
        }
        try {
            return action.get();
        } finally {
            inFlight.remove(volume, mine);
        }
    }

    /** Whether a call holds {@code volume} now. */
    public boolean isBusy(VolumeId volume) {
        return inFlight.containsKey(volume);
    }

    /** Identity matters: a holder is equal only to itself. */
    private static final class Holder {
        private final String operation;

        private Holder(String operation) {
            this.operation = operation;
        }
    }
}
