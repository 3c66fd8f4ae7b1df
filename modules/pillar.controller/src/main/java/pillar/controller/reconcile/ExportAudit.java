package pillar.controller.reconcile;

import java.util.List;

import pillar.api.agent.v1.Export;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;

/**
 * What a PillarStore's poll does with its agent's exports and the states besides the orphan check
 * (in production: revoking the grants no publication holds). Called with the exports as listed and
 * the states as read after them; it must not throw for an agent that refuses or cannot be reached.
 */
public interface ExportAudit {
    /** Does nothing (the reconcilers' own tests). */
    ExportAudit NONE = (target, agent, backend, exports, states) -> { };

    void audit(AgentTarget target, String agent, String backend, List<Export> exports, List<PillarVolumeState> states);
}
