package pillar.runtime.server;

import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import pillar.runtime.exec.CommandFailedException;
import pillar.api.value.InvalidValueException;

/**
 * How every workload answers a unary gRPC call: the call's result, or the status its failure maps
 * to, with the outcome and duration logged (an INTERNAL failure at WARNING with its stack trace,
 * other failures at INFO, success at FINE). The mapping, in order: a {@link StatusRuntimeException}
 * keeps its status, a {@link CsiException} its code, an {@link InvalidValueException} is
 * INVALID_ARGUMENT; then the workload's own {@link ErrorMapping}; then a command that ran out of time
 * is DEADLINE_EXCEEDED and anything else INTERNAL. A failure never escapes to the transport.
 */
public final class UnaryCall {
    private static final Logger LOG = Logger.getLogger(UnaryCall.class.getName());

    private UnaryCall() {
    }

    /** Runs {@code call} and answers {@code response} with its result or its failure's status. */
    public static <T> void answer(String rpc, StreamObserver<T> response, ErrorMapping errors, Supplier<T> call) {
        long started = System.nanoTime();
        T result;
        try {
            result = call.get();
        } catch (RuntimeException e) {
            StatusRuntimeException failure = failureOf(e, errors);
            Status status = failure.getStatus();
            long ms = (System.nanoTime() - started) / 1_000_000;
            boolean internal = status.getCode() == Status.Code.INTERNAL;
            LOG.log(internal ? Level.WARNING : Level.INFO, rpc + " -> " + status.getCode() + " in " + ms + " ms: "
                    + status.getDescription(), internal ? e : null);
            response.onError(failure);
            return;
        }
        LOG.fine(() -> rpc + " -> OK in " + (System.nanoTime() - started) / 1_000_000 + " ms");
        response.onNext(result);
        response.onCompleted();
    }

    /** The status {@code e} is answered with (the mapping of {@link UnaryCall}). */
    public static Status statusOf(RuntimeException e, ErrorMapping errors) {
        return failureOf(e, errors).getStatus();
    }

    /** The failure {@code e} is answered with: its status and the details the workload's mapping gives. */
    public static StatusRuntimeException failureOf(RuntimeException e, ErrorMapping errors) {
        return switch (e) {
            case StatusRuntimeException s -> s;
            case CsiException c -> Status.fromCode(c.code()).withDescription(c.getMessage()).asRuntimeException();
            case InvalidValueException v -> Status.INVALID_ARGUMENT.withDescription(v.getMessage()).asRuntimeException();
            default -> errors.failureOf(e).orElseGet(() -> (switch (e) {
                case CommandFailedException c -> (c.timedOut() ? Status.DEADLINE_EXCEEDED : Status.INTERNAL)
                        .withDescription(c.getMessage());
                default -> Status.INTERNAL.withDescription(e.toString());
            }).asRuntimeException());
        };
    }
}
