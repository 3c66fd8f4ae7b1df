package pillar.api.fencing;

import java.util.Set;

import pillar.api.value.LifecycleUid;

/**
 * What the fencing rules remember of one volume: the lifecycle that owns it, the highest
 * publication generation seen, whether that lifecycle has ended (a tombstone, left by a delete),
 * and the lifecycles that owned the volume ID before and have ended. The input and output of
 * {@link Fencing#admit}; how a holder stores it (the agent keeps it on disk) is the holder's own.
 */
public record FencingMark(LifecycleUid lifecycle, long generation, boolean ended, Set<LifecycleUid> retired) {
    public FencingMark {
        if (lifecycle == null || retired == null) {
            throw new IllegalArgumentException("lifecycle and retired must be set");
        }
        if (generation < 0) {
            throw new IllegalArgumentException("generation must not be negative");
        }
        retired = Set.copyOf(retired);
    }

    /** The first mark of a lifecycle. */
    public static FencingMark active(FencingToken token) {
        return new FencingMark(token.lifecycle(), token.generation(), false, Set.of());
    }

    /** Whether calls of this lifecycle were ever accepted and it has not ended. */
    public boolean isActive(LifecycleUid uid) {
        return !ended && lifecycle.equals(uid);
    }
}
