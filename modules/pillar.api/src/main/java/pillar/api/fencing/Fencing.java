package pillar.api.fencing;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import pillar.api.value.LifecycleUid;

/**
 * The fencing rules, one definition for the controller and the agent. A pure function of the
 * durable mark and the incoming token: it decides and returns the mark to persist; it does no I/O.
 *
 * <p>Rules, in order:
 * <ol>
 *   <li>no token: refused ({@link FencingViolation.Reason#MISSING_TOKEN});</li>
 *   <li>no mark yet: accepted, the token's lifecycle now owns the volume;</li>
 *   <li>a lifecycle that ended before the current one: refused ({@code ENDED_LIFECYCLE});</li>
 *   <li>the current lifecycle after it ended: refused ({@code ENDED_LIFECYCLE}), except a repeated
 *       {@link Intent#END} at or above the mark's generation, which is the idempotent retry of the
 *       delete that ended it and is accepted as a no-op;</li>
 *   <li>the current lifecycle with a generation below the mark's: refused ({@code STALE_GENERATION});
 *       an equal generation is accepted (retries of one step are idempotent);</li>
 *   <li>another lifecycle while the current one is active: refused ({@code FOREIGN_LIFECYCLE});</li>
 *   <li>another lifecycle after the current one ended: accepted, it replaces it and the ended one
 *       is retired for good.</li>
 * </ol>
 */
public final class Fencing {
    private Fencing() {
    }

    /** What the call does to the lifecycle. */
    public enum Intent {
        /** Changes the volume's resources; the lifecycle goes on. */
        CHANGE,
        /** Deletes the volume; the lifecycle ends and a tombstone stays. */
        END
    }

    /**
     * The outcome of an accepted call: the mark to persist before acting, and whether the call is
     * already done (a repeated delete).
     */
    public record Admission(FencingMark next, boolean alreadyDone) {
    }

    /**
     * Decides a call.
     *
     * @param mark   the volume's durable mark, empty if none was ever written
     * @param token  the call's token, empty if it carried none
     * @param intent what the call does
     * @return the admission, with the mark to persist before the call acts
     * @throws FencingViolation when the call must be refused
     */
    public static Admission admit(Optional<FencingMark> mark, Optional<FencingToken> token, Intent intent) {
        FencingToken t = token.orElseThrow(() -> new FencingViolation(FencingViolation.Reason.MISSING_TOKEN,
                "the call carries no fencing token; every call that changes a volume must carry one"));
        boolean ending = intent == Intent.END;
        if (mark.isEmpty()) {
            return new Admission(new FencingMark(t.lifecycle(), t.generation(), ending, Set.of()), false);
        }
        FencingMark m = mark.get();
        if (m.retired().contains(t.lifecycle())) {
            throw new FencingViolation(FencingViolation.Reason.ENDED_LIFECYCLE,
                    "lifecycle " + t.lifecycle() + " has ended and was replaced by " + m.lifecycle());
        }
        if (m.lifecycle().equals(t.lifecycle())) {
            if (t.generation() < m.generation()) {
                throw new FencingViolation(FencingViolation.Reason.STALE_GENERATION,
                        "stale call: generation " + t.generation() + " is older than the mark's " + m.generation()
                                + " for lifecycle " + t.lifecycle());
            }
            if (m.ended()) {
                if (ending) {
                    return new Admission(m, true);
                }
                throw new FencingViolation(FencingViolation.Reason.ENDED_LIFECYCLE,
                        "lifecycle " + t.lifecycle() + " has ended (the volume was deleted)");
            }
            return new Admission(new FencingMark(m.lifecycle(), t.generation(), ending, m.retired()), false);
        }
        if (!m.ended()) {
            throw new FencingViolation(FencingViolation.Reason.FOREIGN_LIFECYCLE,
                    "the volume belongs to lifecycle " + m.lifecycle() + ", not " + t.lifecycle());
        }
        Set<LifecycleUid> retired = new HashSet<>(m.retired());
        retired.add(m.lifecycle());
        return new Admission(new FencingMark(t.lifecycle(), t.generation(), ending, retired), false);
    }
}
