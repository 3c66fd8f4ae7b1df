package pillar.agent.fencing;

import java.util.Optional;
import java.util.function.Supplier;

import pillar.api.fencing.Fencing;
import pillar.api.fencing.FencingMark;
import pillar.api.fencing.FencingToken;
import pillar.api.fencing.FencingViolation;
import pillar.api.value.VolumeId;
import pillar.runtime.durable.DamagedRecordException;

/**
 * Runs a volume-changing call under fencing: with the volume's lock held, the call's token is
 * admitted against the durable mark ({@link Fencing#admit}), the raised generation is persisted
 * BEFORE the call acts (so a later stale call can never slip in behind it), then the call runs.
 * An ending call (delete) writes its tombstone only AFTER it succeeded: a delete that failed half
 * way is retried for real, not taken as done. Every refused call is counted ({@link FencingRefusals}).
 */
public final class Fence {
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(Fence.class.getName());
    private final MarkStore marks;
    private final WaitingVolumeLocks locks;
    private final FencingRefusals refusals;

    public Fence(MarkStore marks, WaitingVolumeLocks locks, FencingRefusals refusals) {
        this.marks = marks;
        this.locks = locks;
        this.refusals = refusals;
    }

    /**
     * @param action what to do; receives whether the call is already done (a repeated delete of
     *               an ended lifecycle), in which case it must change nothing
     * @throws pillar.api.fencing.FencingViolation when the call is refused; nothing was changed
     */
    public <T> T run(VolumeId volume, Optional<FencingToken> token, Fencing.Intent intent, Action<T> action) {
        return locks.withLock(volume, () -> {
            Optional<FencingMark> current;
            try {
                current = marks.read(volume);
            } catch (DamagedRecordException e) {
                throw new DamagedMark(e);
            }
            Fencing.Admission admission;
            try {
                admission = Fencing.admit(current, token, intent);
            } catch (FencingViolation refused) {
                refusals.count(refused);
                throw refused;
            }
            if (admission.alreadyDone()) {
                return action.run(true);
            }
            FencingMark next = admission.next();
            FencingMark beforeActing = next.ended()
                    ? new FencingMark(next.lifecycle(), next.generation(), false, next.retired())
                    : next;
            if (current.isEmpty() || !current.get().equals(beforeActing)) {
                marks.write(volume, beforeActing);
            }
            T result = action.run(false);
            if (next.ended()) {
                marks.write(volume, next);
            }
            return result;
        });
    }

    /**
     * {@link #run} for a call that only takes access away (a deny): when the volume's mark is damaged
     * it still runs, without admitting the token or writing a mark (revoking access hands the volume
     * to no one, and a fence that waits for an operator is no fence), and says so in the log.
     */
    public <T> T revoke(VolumeId volume, Optional<FencingToken> token, Action<T> action) {
        try {
            return run(volume, token, Fencing.Intent.CHANGE, action);
        } catch (DamagedMark damaged) {
            LOG.warning("volume " + volume + ": revoking access although its fencing mark is damaged (" + damaged.getMessage() + ")");
            return locks.withLock(volume, () -> action.run(false));
        }
    }

    /** Runs a read-only or bookkeeping step under the volume's lock, without a token. */
    public <T> T locked(VolumeId volume, Supplier<T> action) {
        return locks.withLock(volume, action);
    }

    /** The volume's mark cannot be read: the call is refused (as before: FAILED_PRECONDITION), a revoke goes on. */
    static final class DamagedMark extends DamagedRecordException {
        private static final long serialVersionUID = 1L;

        DamagedMark(DamagedRecordException cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** A fenced call's body. */
    @FunctionalInterface
    public interface Action<T> {
        T run(boolean alreadyDone);
    }
}
