package pillar.controller.csi;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import pillar.api.value.VolumeId;

/**
 * One operation at a time per volume, never waiting: a second call on a volume while one is in
 * flight is ABORTED at once, as the CSI spec asks, and the CO retries it later. Volumes do not
 * wait on each other (one lock per volume ID, no global lock).
 */
public final class VolumeLocks {
    private final Set<VolumeId> busy = ConcurrentHashMap.newKeySet();

    /** Runs {@code operation} holding the volume, or throws ABORTED when it is held. */
    public <T> T run(VolumeId volume, Supplier<T> operation) {
        if (!busy.add(volume)) {
            throw CsiException.aborted("an operation on volume " + volume + " is already in progress; retry later");
        }
        try {
            return operation.get();
        } finally {
            busy.remove(volume);
        }
    }

    /** Whether an operation holds the volume now. */
    public boolean isBusy(VolumeId volume) {
        return busy.contains(volume);
    }
}
