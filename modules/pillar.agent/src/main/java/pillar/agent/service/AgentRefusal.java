package pillar.agent.service;

import pillar.api.agent.v1.AgentErrorReason;

/**
 * The agent refuses a call the volume's state does not allow (FAILED_PRECONDITION), for the
 * {@linkplain #reason() reason} the caller decides on; nothing was changed.
 */
public final class AgentRefusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final AgentErrorReason reason;

    public AgentRefusal(AgentErrorReason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public AgentErrorReason reason() {
        return reason;
    }
}
