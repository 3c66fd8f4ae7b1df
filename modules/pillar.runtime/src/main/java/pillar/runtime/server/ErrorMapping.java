package pillar.runtime.server;

import java.util.Optional;

import io.grpc.StatusRuntimeException;

/**
 * What one workload's own exceptions mean as gRPC failures (a backend's refusal, an unreachable
 * agent, a kernel that does not answer): a status, with details where the workload gives a reason;
 * empty for an exception it does not know, which {@link UnaryCall} then maps the way every workload does.
 */
@FunctionalInterface
public interface ErrorMapping {
    /** Knows no exception of its own. */
    ErrorMapping NONE = e -> Optional.empty();

    Optional<StatusRuntimeException> failureOf(RuntimeException e);
}
