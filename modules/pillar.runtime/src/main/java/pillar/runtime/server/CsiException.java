package pillar.runtime.server;

import io.grpc.Status;

/**
 * A CSI call refused or failed with the exact code the CSI spec lists for the situation; the
 * message says why, for the CO's events, and never echoes control characters of the request.
 * {@link UnaryCall} answers it with its code and message.
 */
public final class CsiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Status.Code code;

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

    public static CsiException invalid(String message) {
        return new CsiException(Status.Code.INVALID_ARGUMENT, message);
    }

    public static CsiException notFound(String message) {
        return new CsiException(Status.Code.NOT_FOUND, message);
    }

    public static CsiException alreadyExists(String message) {
        return new CsiException(Status.Code.ALREADY_EXISTS, message);
    }

    public static CsiException precondition(String message) {
        return new CsiException(Status.Code.FAILED_PRECONDITION, message);
    }

    public static CsiException outOfRange(String message) {
        return new CsiException(Status.Code.OUT_OF_RANGE, message);
    }

    public static CsiException exhausted(String message) {
        return new CsiException(Status.Code.RESOURCE_EXHAUSTED, message);
    }

    public static CsiException aborted(String message) {
        return new CsiException(Status.Code.ABORTED, message);
    }

    public static CsiException unavailable(String message) {
        return new CsiException(Status.Code.UNAVAILABLE, message);
    }
}
