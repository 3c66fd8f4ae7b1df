package pillar.controller.csi;

import io.grpc.Status;

/**
 * A CSI call refused or failed with the exact code the CSI spec lists for the situation; the
 * message says why, for the CO's events, and never echoes control characters of the request.
 */
public final class CsiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Status.Code code;

    public CsiException(Status.Code code, String message) {
        super(message);
        this.code = code;
    }

    public CsiException(Status.Code code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public Status.Code code() {
        return code;
    }

    static CsiException invalid(String message) {
        return new CsiException(Status.Code.INVALID_ARGUMENT, message);
    }

    static CsiException notFound(String message) {
        return new CsiException(Status.Code.NOT_FOUND, message);
    }

    static CsiException alreadyExists(String message) {
        return new CsiException(Status.Code.ALREADY_EXISTS, message);
    }

    static CsiException precondition(String message) {
        return new CsiException(Status.Code.FAILED_PRECONDITION, message);
    }

    static CsiException outOfRange(String message) {
        return new CsiException(Status.Code.OUT_OF_RANGE, message);
    }

    static CsiException exhausted(String message) {
        return new CsiException(Status.Code.RESOURCE_EXHAUSTED, message);
    }

    static CsiException aborted(String message) {
        return new CsiException(Status.Code.ABORTED, message);
    }

    static CsiException unavailable(String message) {
        return new CsiException(Status.Code.UNAVAILABLE, message);
    }
}
