package pillar.agent.service;

import java.util.logging.Level;
import java.util.logging.Logger;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import pillar.agent.backend.BackendException;
import pillar.agent.configfs.NvmetTargetException;
import pillar.api.exec.CommandFailedException;
import pillar.api.fencing.FencingViolation;
import pillar.api.value.InvalidValueException;

/** Maps what the agent throws to the gRPC status the controller acts on. */
final class GrpcErrors {
    private static final Logger LOG = Logger.getLogger(GrpcErrors.class.getName());

    private GrpcErrors() {
    }

    static StatusRuntimeException toStatus(RuntimeException e) {
        Status status = switch (e) {
            case StatusRuntimeException s -> s.getStatus();
            case InvalidValueException v -> Status.INVALID_ARGUMENT.withDescription(v.getMessage());
            case FencingViolation f -> Status.FAILED_PRECONDITION.withDescription("fencing: " + f.getMessage());
            case BackendException b -> backendStatus(b.kind()).withDescription(b.getMessage());
            case NvmetTargetException t -> (t.timedOut() ? Status.DEADLINE_EXCEEDED : Status.INTERNAL)
                    .withDescription("nvmet: " + t.getMessage());
            case CommandFailedException c -> (c.timedOut() ? Status.DEADLINE_EXCEEDED : Status.INTERNAL)
                    .withDescription(c.getMessage());
            case IllegalStateException s -> Status.FAILED_PRECONDITION.withDescription(s.getMessage());
            default -> Status.INTERNAL.withDescription(e.toString());
        };
        if (status.getCode() == Status.Code.INTERNAL) {
            LOG.log(Level.WARNING, "internal error: " + e.getMessage(), e);
        } else {
            LOG.info(() -> status.getCode() + ": " + status.getDescription());
        }
        return status.asRuntimeException();
    }

    private static Status backendStatus(BackendException.Kind kind) {
        return switch (kind) {
            case CONFLICT -> Status.ALREADY_EXISTS;
            case OUT_OF_RANGE -> Status.OUT_OF_RANGE;
            case NO_SPACE -> Status.RESOURCE_EXHAUSTED;
            case INVALID -> Status.INVALID_ARGUMENT;
            case NOT_FOUND -> Status.NOT_FOUND;
            // the pool itself is missing: not a transient outage of the agent, which answered
            case UNAVAILABLE -> Status.FAILED_PRECONDITION;
            case FAILED -> Status.INTERNAL;
        };
    }
}
