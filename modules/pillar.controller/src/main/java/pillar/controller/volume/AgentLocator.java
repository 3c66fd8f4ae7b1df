package pillar.controller.volume;

import pillar.runtime.server.CsiException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.AgentTargets;

/**
 * Where to dial a volume's agent, read from the {@link Inventory} at each call (never cached: the
 * PillarAgent or its node's address may change). A missing or misconfigured agent is
 * FAILED_PRECONDITION, and so is one whose agent API level the PillarAgent's reconciler found not to work
 * with this controller's ({@code AgentConnected} reason {@code AgentApiMismatch}); a node without an
 * address, UNAVAILABLE (it may come back).
 */
public final class AgentLocator {
    private final Inventory inventory;
    private final AgentTargets targets;

    public AgentLocator(Inventory inventory, AgentTargets targets) {
        this.inventory = inventory;
        this.targets = targets;
    }

    public AgentTarget target(String agentName) {
        PillarAgent agent = inventory.agent(agentName).orElse(null);
        if (agent == null) {
            throw CsiException.precondition("PillarAgent " + agentName + " does not exist");
        }
        if (agent.getStatus() != null && agent.getStatus().getConditions() != null) {
            agent.getStatus().getConditions().stream().filter(c -> PillarAgent.AGENT_CONNECTED.equals(c.getType()))
                    .filter(c -> Reasons.AGENT_API_MISMATCH.equals(c.getReason())).findFirst().ifPresent(c -> {
                        throw CsiException.precondition("PillarAgent " + agentName + " cannot be used (" + c.getReason() + "): "
                                + c.getMessage());
                    });
        }
        try {
            return targets.resolve(agent);
        } catch (AgentTargets.Unresolved e) {
            String message = "PillarAgent " + agentName + " cannot be dialled (" + e.reason() + "): " + e.getMessage();
            throw switch (e.reason()) {
                case Reasons.NODE_NOT_FOUND, Reasons.NODE_ADDRESS_UNKNOWN -> CsiException.unavailable(message);
                default -> CsiException.precondition(message);
            };
        }
    }
}
