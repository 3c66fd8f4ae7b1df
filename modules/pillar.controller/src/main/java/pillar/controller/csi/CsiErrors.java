package pillar.controller.csi;

import java.util.Optional;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.grpc.Status;
import pillar.runtime.server.ErrorMapping;
import pillar.controller.agent.AgentException;
import pillar.controller.volume.state.DurableRecords;

/** The controller's own failures as the gRPC status the CSI spec asks for: the agent's outcome and the Kubernetes API's. */
final class CsiErrors {
    /** For {@link pillar.runtime.server.UnaryCall}: an agent's outcome, a Kubernetes API failure. */
    static final ErrorMapping MAPPING = e -> switch (e) {
        case AgentException a -> Optional.of(agentStatus(a).withDescription(a.getMessage()).asRuntimeException());
        case KubernetesClientException k -> Optional.of(kubernetesStatus(k).withDescription("Kubernetes API: " + k.getMessage())
                .asRuntimeException());
        // a compare-and-swap lost to another writer, as the API server's 409 is (the CO retries)
        case DurableRecords.Conflict c -> Optional.of(Status.ABORTED.withDescription("Kubernetes API: " + c.getMessage())
                .asRuntimeException());
        default -> Optional.empty();
    };

    private CsiErrors() {
    }

    /** The agent's outcome, seen from the CO: most keep their meaning, transport trouble is UNAVAILABLE. */
    private static Status agentStatus(AgentException e) {
        return switch (e.kind()) {
            case UNREACHABLE -> Status.UNAVAILABLE;
            case TIMED_OUT -> Status.DEADLINE_EXCEEDED;
            case INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
            case NOT_FOUND -> Status.NOT_FOUND;
            case ALREADY_EXISTS -> Status.ALREADY_EXISTS;
            case FAILED_PRECONDITION, DENIED, UNSUPPORTED -> Status.FAILED_PRECONDITION;
            case OUT_OF_RANGE -> Status.OUT_OF_RANGE;
            case NO_SPACE -> Status.RESOURCE_EXHAUSTED;
            case BUSY -> Status.ABORTED;
            case FAILED -> Status.INTERNAL;
        };
    }

    private static Status kubernetesStatus(KubernetesClientException e) {
        int code = e.getCode();
        if (code == 409) {
            return Status.ABORTED;
        }
        if (code == 401 || code == 403) {
            return Status.INTERNAL; // RBAC: the chart grants what the controller needs; a gap is a bug
        }
        return Status.UNAVAILABLE;
    }
}
