package pillar.agent.backend;

import java.util.logging.Level;
import java.util.logging.Logger;

import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.runtime.exec.CommandFailedException;

/** A backend call that failed, with what the service needs to answer with the right code. */
public final class BackendException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, each mapped to one gRPC code by the service. */
    public enum Kind {
        /** The volume exists with other parameters (ALREADY_EXISTS). */
        CONFLICT,
        /** A shrink or a size the backend cannot hold (OUT_OF_RANGE). */
        OUT_OF_RANGE,
        /** Not enough free space (RESOURCE_EXHAUSTED). */
        NO_SPACE,
        /** An option or value the backend refuses (INVALID_ARGUMENT). */
        INVALID,
        /** The volume does not exist (NOT_FOUND). */
        NOT_FOUND,
        /** The pool or volume group itself is missing or unusable (UNAVAILABLE). */
        UNAVAILABLE,
        /**
         * An operation on the volume is still running, e.g. the background copy of a clone onto it or
         * from it (ABORTED: the caller retries later; the message says how far it is).
         */
        BUSY,
        /** The backend's layout cannot do this at all, e.g. snapshots on LVM linear (FAILED_PRECONDITION, reason SnapshotsUnsupported). */
        UNSUPPORTED,
        /** An adoption of a volume another installation's mark claims (FAILED_PRECONDITION, reason VolumeForeign); nothing changed. */
        FOREIGN,
        /**
         * An adoption of a volume something uses now, the message saying what (FAILED_PRECONDITION, reason VolumeInUse);
         * nothing changed.
         */
        IN_USE,
        /** Anything else: a tool failed unexpectedly (INTERNAL). */
        FAILED
    }

    private static final Logger LOG = Logger.getLogger(BackendException.class.getName());

    private final Kind kind;

    public BackendException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public BackendException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /**
     * A {@link Kind#FAILED} for a command that failed in a way the caller does not tell apart: what was
     * being done, then the command's own message (argument list, exit status or deadline, stderr).
     */
    public static BackendException failed(String what, CommandFailedException e) {
        LOG.log(Level.FINE, what, e);
        return new BackendException(Kind.FAILED, what + ": " + e.getMessage(), e);
    }

    /** {@code size} rounded up to a multiple of {@code granularity}; OUT_OF_RANGE naming {@code what} when it cannot be. */
    public static ByteSize roundUp(ByteSize size, long granularity, String what) {
        try {
            return size.roundUpTo(granularity);
        } catch (InvalidValueException e) {
            throw new BackendException(Kind.OUT_OF_RANGE, size + " cannot be rounded up to " + what + " " + granularity, e);
        }
    }
}
