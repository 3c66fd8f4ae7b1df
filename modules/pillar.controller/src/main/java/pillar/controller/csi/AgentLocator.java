package pillar.controller.csi;

import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.AgentTargets;
import pillar.api.server.CsiException;

/**
 * Where to dial a volume's agent, read from the Kubernetes API at each call (never cached: the
 * PillarAgent or its node's address may change). A missing or misconfigured agent is
 * FAILED_PRECONDITION; a node without an address, UNAVAILABLE (it may come back).
 */
final class AgentLocator {
    private final KubernetesClient client;
    private final AgentTargets targets;

    AgentLocator(KubernetesClient client, AgentTargets targets) {
        this.client = client;
        this.targets = targets;
    }

    AgentTarget target(String agentName) {
        PillarAgent agent = client.resources(PillarAgent.class).withName(agentName).get();
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
