package pillar.api.fencing;

/**
 * A call refused by the fencing rules. The agent answers it with FAILED_PRECONDITION and this
 * message; nothing was changed.
 */
public final class FencingViolation extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a call was refused. */
    public enum Reason {
        /** The call carried no token. */
        MISSING_TOKEN,
        /** The token's generation is older than the durable mark's: a stale, reordered or replayed call. */
        STALE_GENERATION,
        /** The volume belongs to another, still active lifecycle. */
        FOREIGN_LIFECYCLE,
        /** The token's lifecycle has ended (deleted) or was replaced by a newer one. */
        ENDED_LIFECYCLE
    }

    private final Reason reason;

    public FencingViolation(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
