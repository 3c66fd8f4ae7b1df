package pillar.controller.volume;

import pillar.runtime.server.CsiException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.AgentTargets;

/**
 * Where to dial a volume's agent, read from the {@link Inventory} at each call (never cached: the
 * PillarAgent or its node's address may change). A missing or misconfigured agent is
 * FAILED_PRECONDITION; a node without an address, UNAVAILABLE (it may come back).
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
