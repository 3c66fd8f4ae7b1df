package pillar.controller.agent;

import io.grpc.Status;
import pillar.api.agent.v1.AgentErrorReason;

/**
 * An agent call failed. {@link #kind()} is the small set of outcomes callers act on (the CSI
 * service maps them to CSI codes, reconcilers to condition reasons), {@link #reason()} the agent's
 * reason where it gave one (callers decide on it, never on the message); the message names the RPC,
 * the agent and what it said.
 */
public final class AgentException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, from the caller's point of view. */
    public enum Kind {
        /** No connection: the agent is down, the address is wrong, TLS was refused (UNAVAILABLE). Retryable. */
        UNREACHABLE(true),
        /** The call's deadline passed (DEADLINE_EXCEEDED); it may still have taken effect. Retryable. */
        TIMED_OUT(true),
        /** The agent refused the request's values (INVALID_ARGUMENT), e.g. an unknown backend. */
        INVALID_ARGUMENT(false),
        /** The volume or object does not exist (NOT_FOUND). */
        NOT_FOUND(false),
        /** It exists with other properties (ALREADY_EXISTS). */
        ALREADY_EXISTS(false),
        /** Refused by fencing or by the volume's state (FAILED_PRECONDITION). */
        FAILED_PRECONDITION(false),
        /** A size out of range, e.g. a shrink (OUT_OF_RANGE). */
        OUT_OF_RANGE(false),
        /** The pool is full (RESOURCE_EXHAUSTED). */
        NO_SPACE(false),
        /** Another operation on the volume is in flight (ABORTED). Retryable. */
        BUSY(true),
        /** The agent does not accept this client (UNAUTHENTICATED, PERMISSION_DENIED). */
        DENIED(false),
        /** The agent is too old for this RPC (UNIMPLEMENTED). */
        UNSUPPORTED(false),
        /** Anything else: the agent failed (INTERNAL, UNKNOWN, ...). */
        FAILED(false);

        private final boolean retryable;

        Kind(boolean retryable) {
            this.retryable = retryable;
        }

        /** Whether trying the same call again later may succeed without any change. */
        public boolean retryable() {
            return retryable;
        }

        /** The kind of a gRPC status code. */
        public static Kind of(Status.Code code) {
            return switch (code) {
                case UNAVAILABLE -> UNREACHABLE;
                case DEADLINE_EXCEEDED -> TIMED_OUT;
                case INVALID_ARGUMENT -> INVALID_ARGUMENT;
                case NOT_FOUND -> NOT_FOUND;
                case ALREADY_EXISTS -> ALREADY_EXISTS;
                case FAILED_PRECONDITION -> FAILED_PRECONDITION;
                case OUT_OF_RANGE -> OUT_OF_RANGE;
                case RESOURCE_EXHAUSTED -> NO_SPACE;
                case ABORTED -> BUSY;
                case UNAUTHENTICATED, PERMISSION_DENIED -> DENIED;
                case UNIMPLEMENTED -> UNSUPPORTED;
                default -> FAILED;
            };
        }
    }

    private final Kind kind;
    private final AgentErrorReason reason;
    private final String rpc;
    private final String detail;

    public AgentException(Kind kind, String rpc, AgentTarget agent, String detail) {
        this(kind, AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED, rpc, agent, detail, null);
    }

    public AgentException(Kind kind, String rpc, AgentTarget agent, String detail, Throwable cause) {
        this(kind, AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED, rpc, agent, detail, cause);
    }

    public AgentException(Kind kind, AgentErrorReason reason, String rpc, AgentTarget agent, String detail, Throwable cause) {
        // the kind is left out where the detail already starts with it (FAILED_PRECONDITION: ...)
        super(rpc + " on agent " + agent + ": " + (detail.startsWith(kind + ":") ? "" : kind + ": ") + detail, cause);
        this.kind = kind;
        this.reason = reason;
        this.rpc = rpc;
        this.detail = detail;
    }

    public Kind kind() {
        return kind;
    }

    /** The agent's reason for the failure; {@code AGENT_ERROR_REASON_UNSPECIFIED} when it gave none. */
    public AgentErrorReason reason() {
        return reason;
    }

    /** The RPC's name, e.g. {@code GetCapacity}. */
    public String rpc() {
        return rpc;
    }

    /** What the agent (or gRPC) said, without the RPC and agent prefix. */
    public String detail() {
        return detail;
    }
}
