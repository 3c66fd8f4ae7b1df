package pillar.agent.service;

import java.util.Optional;

import io.grpc.Status;
import pillar.agent.backend.BackendException;
import pillar.agent.configfs.NvmetTargetException;
import pillar.api.fencing.FencingViolation;
import pillar.runtime.server.ErrorMapping;

/** The agent's own failures as the gRPC status the controller acts on. */
final class GrpcErrors {
    /** The reason (the start of a FAILED_PRECONDITION description) when a backend's layout cannot take snapshots. */
    public static final String SNAPSHOTS_UNSUPPORTED = "SnapshotsUnsupported";

    /**
     * For {@link pillar.runtime.server.UnaryCall}: a fencing violation and a state the call cannot change
     * are FAILED_PRECONDITION, a backend's refusal keeps its kind, nvmet that does not answer in time
     * is DEADLINE_EXCEEDED.
     */
    static final ErrorMapping MAPPING = e -> Optional.ofNullable(switch (e) {
        case FencingViolation f -> Status.FAILED_PRECONDITION.withDescription("fencing: " + f.getMessage());
        case BackendException b -> backendStatus(b.kind()).withDescription(b.kind() == BackendException.Kind.UNSUPPORTED
                ? SNAPSHOTS_UNSUPPORTED + ": " + b.getMessage() : b.getMessage());
        case NvmetTargetException t -> (t.timedOut() ? Status.DEADLINE_EXCEEDED : Status.INTERNAL)
                .withDescription("nvmet: " + t.getMessage());
        case IllegalStateException s -> Status.FAILED_PRECONDITION.withDescription(s.getMessage());
        default -> null;
    });

    private GrpcErrors() {
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
            case UNSUPPORTED -> Status.FAILED_PRECONDITION;
            // CSI's "operation pending for volume": the CO retries with backoff, the state stays as it is
            case BUSY -> Status.ABORTED;
            case FAILED -> Status.INTERNAL;
        };
    }
}
