package pillar.node.service;

import io.grpc.Status;

/** A request answered with a specific CSI (gRPC) code; the message is for the operator. */
public final class CsiError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Status.Code code;

    public CsiError(Status.Code code, String message) {
        super(message);
        this.code = code;
    }

    public Status.Code code() {
        return code;
    }

    public static CsiError invalid(String message) {
        return new CsiError(Status.Code.INVALID_ARGUMENT, message);
    }

    public static CsiError precondition(String message) {
        return new CsiError(Status.Code.FAILED_PRECONDITION, message);
    }

    public static CsiError notFound(String message) {
        return new CsiError(Status.Code.NOT_FOUND, message);
    }

    public static CsiError alreadyExists(String message) {
        return new CsiError(Status.Code.ALREADY_EXISTS, message);
    }
}
