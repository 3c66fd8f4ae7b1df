package pillar.controller.volume;

import java.util.List;
import java.util.logging.Logger;

import pillar.api.agent.v1.Export;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.reconcile.Events;
import pillar.controller.reconcile.ExportAudit;

/**
 * Revokes, through the agent's Reconcile, every grant that no publication holds ({@link StaleGrants}),
 * with a Warning event {@value StaleGrants#REVOKED} on the state: a grant never outlives its
 * publication by more than a store's poll interval. One the agent refuses (a newer token, say) or
 * cannot take now is logged and looked at again on the next poll.
 */
final class GrantRevocation implements ExportAudit {
    private static final Logger LOG = Logger.getLogger(GrantRevocation.class.getName());

    private final AgentClient agents;
    private final Events events;

    GrantRevocation(AgentClient agents, Events events) {
        this.agents = agents;
        this.events = events;
    }

    @Override
    public void audit(AgentTarget target, String agent, String backend, List<Export> exports, List<PillarVolumeState> states) {
        for (StaleGrants grant : StaleGrants.of(agent, backend, exports, states)) {
            try {
                agents.reconcile(target, grant.revocation());
            } catch (AgentException e) {
                LOG.warning(() -> "PillarVolumeState " + grant.export().getVolumeId() + ": stale grants " + grant.stale()
                        + " not revoked now: " + e.getMessage());
                continue;
            }
            String message = grant.message(agent);
            LOG.warning(() -> "PillarVolumeState " + grant.export().getVolumeId() + ": " + message);
            events.warning(grant.state(), StaleGrants.REVOKED, message);
        }
    }
}
