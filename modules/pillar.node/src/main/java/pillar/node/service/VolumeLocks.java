package pillar.node.service;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

import io.grpc.Status;
import pillar.api.value.VolumeId;

/**
 * One operation per volume at a time: a second call on a volume that has one in flight is answered
 * ABORTED at once (the CSI spec's "operation pending for volume"), never queued; calls on other
 * volumes are not held up. Kept apart from the logic so the logic reads as if it were alone.
 */
public final class VolumeLocks {
    private final ConcurrentMap<VolumeId, Holder> inFlight = new ConcurrentHashMap<>();

    /** Runs {@code operation} holding {@code volume}, or throws ABORTED if another call holds it. */
    public <T> T withVolume(VolumeId volume, String operation, Supplier<T> action) {
        Holder mine = new Holder(operation);
        Holder holder = inFlight.putIfAbsent(volume, mine);
        if (holder != null) {
            throw new CsiError(Status.Code.ABORTED, "an operation (" + holder.operation + ") is already in progress for volume "
                    + volume + "; retry later");
        }
        try {
            return action.get();
        } finally {
            inFlight.remove(volume, mine);
        }
    }

    /** Whether a call holds {@code volume} now (for tests and diagnostics). */
    public boolean busy(VolumeId volume) {
        return inFlight.containsKey(volume);
    }

    /** Identity matters: only the call that took the volume releases it. */
    private static final class Holder {
        private final String operation;

        private Holder(String operation) {
            this.operation = operation;
        }
    }
}
