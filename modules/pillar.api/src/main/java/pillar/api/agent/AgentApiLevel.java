package pillar.api.agent;

import java.util.Optional;

import pillar.api.agent.v1.GetCapabilitiesResponse;

/**
 * The agent API's level: a whole number raised whenever a controller and an agent must both know a change
 * (a field one side needs the other to send, a call it needs the other to serve). An agent says in
 * GetCapabilities the level it speaks and the oldest controller level it serves; a controller speaks
 * {@link #CURRENT} and serves agents from {@link #OLDEST_AGENT}. An agent from before levels sends
 * neither field: level 1, serving controllers from 1. The two work together exactly when
 * {@link #mismatch} is empty.
 */
public final class AgentApiLevel {
    /** The level this release's controller and agent speak. */
    public static final int CURRENT = 1;
    /** The oldest agent level this release's controller works with. */
    public static final int OLDEST_AGENT = 1;
    /** The oldest controller level this release's agent serves. */
    public static final int OLDEST_CONTROLLER = 1;

    private AgentApiLevel() {
    }

    /** The level the agent speaks: its {@code api_level}, 1 when unset (an agent from before levels). */
    public static int agentLevel(GetCapabilitiesResponse capabilities) {
        return Math.max(1, capabilities.getApiLevel());
    }

    /** The oldest controller level the agent serves: its {@code oldest_controller_level}, 1 when unset. */
    public static int oldestControllerLevel(GetCapabilitiesResponse capabilities) {
        return Math.max(1, capabilities.getOldestControllerLevel());
    }

    /**
     * Why a controller of {@code controllerLevel} that serves agents from {@code oldestAgent} cannot work with
     * the agent that answered {@code capabilities} (and which side to upgrade), or empty when they work together.
     */
    public static Optional<String> mismatch(GetCapabilitiesResponse capabilities, int controllerLevel, int oldestAgent) {
        int agent = agentLevel(capabilities);
        int oldestController = oldestControllerLevel(capabilities);
        if (agent < oldestAgent) {
            return Optional.of("the agent (" + capabilities.getAgentVersion() + ") speaks agent API level " + agent
                    + " and this controller needs level " + oldestAgent + " or newer: upgrade the agent");
        }
        if (controllerLevel < oldestController) {
            return Optional.of("the agent (" + capabilities.getAgentVersion() + ") serves controllers of agent API level "
                    + oldestController + " or newer and this controller speaks level " + controllerLevel
                    + ": upgrade the controller");
        }
        return Optional.empty();
    }
}
