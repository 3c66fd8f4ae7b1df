package pillar.agent.service;

import java.util.Optional;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import pillar.agent.backend.BackendException;
import pillar.agent.configfs.NvmetTargetException;
import pillar.agent.nfs.NfsTlsUnsupportedException;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.fencing.FencingViolation;
import pillar.runtime.durable.DamagedRecordException;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.server.ErrorMapping;

/**
 * The agent's own failures as the gRPC status the controller acts on, each refusal with its
 * {@link AgentErrorReason} in the details ({@link AgentErrors}). Any other exception, a programming
 * error among them, is left to {@link pillar.runtime.server.UnaryCall}: INTERNAL.
 */
final class GrpcErrors {
    /**
     * For {@link pillar.runtime.server.UnaryCall}: a fencing violation, a refusal of the volume's state and
     * a damaged record and an NFS export asking RPC-with-TLS of a server without it are FAILED_PRECONDITION, a backend's refusal keeps its kind, nvmet that does not
     * answer in time and a backend's command past its deadline are DEADLINE_EXCEEDED.
     */
    static final ErrorMapping MAPPING = e -> Optional.ofNullable(switch (e) {
        case FencingViolation f -> refused(Status.FAILED_PRECONDITION, "fencing: " + f.getMessage(),
                AgentErrorReason.AGENT_ERROR_REASON_FENCED);
        case AgentRefusal r -> refused(Status.FAILED_PRECONDITION, r.getMessage(), r.reason());
        case DamagedRecordException d -> refused(Status.FAILED_PRECONDITION, d.getMessage(),
                AgentErrorReason.AGENT_ERROR_REASON_RECORD_DAMAGED);
        case NfsTlsUnsupportedException n -> refused(Status.FAILED_PRECONDITION, n.getMessage(),
                AgentErrorReason.AGENT_ERROR_REASON_NFS_TLS_UNSUPPORTED);
        case BackendException b -> backendFailure(b);
        case NvmetTargetException t -> t.timedOut()
                ? refused(Status.DEADLINE_EXCEEDED, "nvmet: " + t.getMessage(), AgentErrorReason.AGENT_ERROR_REASON_TARGET_TIMED_OUT)
                : Status.INTERNAL.withDescription("nvmet: " + t.getMessage()).asRuntimeException();
        default -> null;
    });

    private GrpcErrors() {
    }

    private static StatusRuntimeException refused(Status status, String description, AgentErrorReason reason) {
        return AgentErrors.failure(status.withDescription(description), reason);
    }

    private static StatusRuntimeException backendFailure(BackendException b) {
        return switch (b.kind()) {
            case CONFLICT -> plain(Status.ALREADY_EXISTS, b);
            case OUT_OF_RANGE -> plain(Status.OUT_OF_RANGE, b);
            case NO_SPACE -> plain(Status.RESOURCE_EXHAUSTED, b);
            case INVALID -> plain(Status.INVALID_ARGUMENT, b);
            case NOT_FOUND -> plain(Status.NOT_FOUND, b);
            // the pool itself is missing: not a transient outage of the agent, which answered
            case UNAVAILABLE -> refused(Status.FAILED_PRECONDITION, b.getMessage(), AgentErrorReason.AGENT_ERROR_REASON_POOL_UNAVAILABLE);
            case UNSUPPORTED -> refused(Status.FAILED_PRECONDITION, b.getMessage(),
                    AgentErrorReason.AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED);
            // an adoption's refusals: nothing was marked, and only the operator can change what the volume is
            case FOREIGN -> refused(Status.FAILED_PRECONDITION, b.getMessage(), AgentErrorReason.AGENT_ERROR_REASON_VOLUME_FOREIGN);
            case IN_USE -> refused(Status.FAILED_PRECONDITION, b.getMessage(), AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE);
            // CSI's "operation pending for volume": the CO retries with backoff, the state stays as it is
            case BUSY -> refused(Status.ABORTED, b.getMessage(), AgentErrorReason.AGENT_ERROR_REASON_IN_PROGRESS);
            // a command past its deadline (or refused for want of budget): its outcome is unknown, and a retry converges
            case FAILED -> b.getCause() instanceof CommandFailedException c && c.timedOut() ? plain(Status.DEADLINE_EXCEEDED, b)
                    : plain(Status.INTERNAL, b);
        };
    }

    private static StatusRuntimeException plain(Status status, BackendException b) {
        return status.withDescription(b.getMessage()).asRuntimeException();
    }
}
