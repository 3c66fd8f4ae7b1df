package pillar.api.agent;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import pillar.api.agent.v1.AgentErrorReason;

/**
 * The {@link AgentErrorReason} an agent's failure carries beside its status code: a
 * {@code google.rpc.ErrorInfo} in the status details, of domain {@value #DOMAIN}, whose reason is the
 * enum value's name. The caller decides on {@link #reasonOf}, never on the description.
 */
public final class AgentErrors {
    /** The ErrorInfo domain of the agent's reasons. */
    public static final String DOMAIN = "agent.pillar-csi.io";

    private AgentErrors() {
    }

    /** {@code status} (its code and description) with {@code reason} in its details. */
    public static StatusRuntimeException failure(Status status, AgentErrorReason reason) {
        com.google.rpc.Status.Builder proto = com.google.rpc.Status.newBuilder().setCode(status.getCode().value());
        if (status.getDescription() != null) {
            proto.setMessage(status.getDescription());
        }
        proto.addDetails(Any.pack(ErrorInfo.newBuilder().setDomain(DOMAIN).setReason(reason.name()).build()));
        return StatusProto.toStatusRuntimeException(proto.build());
    }

    /**
     * The reason a failure carries: {@code AGENT_ERROR_REASON_UNSPECIFIED} when it carries none, or
     * one this side does not know (a newer agent's).
     */
    public static AgentErrorReason reasonOf(Throwable failure) {
        com.google.rpc.Status status = StatusProto.fromThrowable(failure);
        if (status == null) {
            return AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED;
        }
        for (Any detail : status.getDetailsList()) {
            if (!detail.is(ErrorInfo.class)) {
                continue;
            }
            try {
                ErrorInfo info = detail.unpack(ErrorInfo.class);
                if (DOMAIN.equals(info.getDomain())) {
                    return known(info.getReason());
                }
            } catch (InvalidProtocolBufferException e) {
                return AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED;
            }
        }
        return AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED;
    }

    private static AgentErrorReason known(String name) {
        for (AgentErrorReason reason : AgentErrorReason.values()) {
            if (reason != AgentErrorReason.UNRECOGNIZED && reason.name().equals(name)) {
                return reason;
            }
        }
        return AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED;
    }
}
