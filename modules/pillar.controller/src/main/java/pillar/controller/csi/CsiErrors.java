package pillar.controller.csi;

import java.util.logging.Level;
import java.util.logging.Logger;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import pillar.api.value.InvalidValueException;
import pillar.controller.agent.AgentException;

/** What a CSI call failed with, as the gRPC status the CSI spec asks for. */
final class CsiErrors {
    private static final Logger LOG = Logger.getLogger(CsiErrors.class.getName());

    private CsiErrors() {
    }

    static StatusRuntimeException toStatus(String rpc, RuntimeException e) {
        Status status = switch (e) {
            case CsiException c -> Status.fromCode(c.code()).withDescription(c.getMessage());
            case InvalidValueException v -> Status.INVALID_ARGUMENT.withDescription(v.getMessage());
            case AgentException a -> agentStatus(a).withDescription(a.getMessage());
            case KubernetesClientException k -> kubernetesStatus(k).withDescription("Kubernetes API: " + k.getMessage());
            default -> Status.INTERNAL.withDescription(e.toString());
        };
        if (status.getCode() == Status.Code.INTERNAL) {
            LOG.log(Level.WARNING, rpc + ": internal error: " + e, e);
        } else {
            LOG.info(() -> rpc + ": " + status.getCode() + ": " + status.getDescription());
        }
        return status.asRuntimeException();
    }

    /** The agent's outcome, seen from the CO: most keep their meaning, transport trouble is UNAVAILABLE. */
    static Status agentStatus(AgentException e) {
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
