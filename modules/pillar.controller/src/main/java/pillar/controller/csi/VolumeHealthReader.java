package pillar.controller.csi;

import java.util.logging.Logger;

import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.csi.v1.VolumeCondition;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.api.server.CsiException;

/**
 * The condition of one volume, asked of its agent in one GetVolumeHealth call (one attempt with the
 * read deadline) and judged by {@link VolumeConditions}. It never fails: an agent that cannot be
 * located, reached or asked is itself the answer, an abnormal condition saying so. Shared by
 * ControllerGetVolume and ListVolumes, so that both report a volume's condition alike.
 */
public final class VolumeHealthReader {
    private static final Logger LOG = Logger.getLogger(VolumeHealthReader.class.getName());

    private final AgentClient agents;
    private final AgentLocator locator;

    VolumeHealthReader(AgentClient agents, AgentLocator locator) {
        this.agents = agents;
        this.locator = locator;
    }

    /** The volume's condition now. */
    VolumeCondition condition(PillarVolumeState state) {
        AgentTarget target;
        try {
            target = locator.target(state.getSpec().getAgent());
        } catch (CsiException e) {
            return VolumeConditions.unreachable(state, e.getMessage());
        }
        try {
            return VolumeConditions.of(state, agents.getVolumeHealth(target, GetVolumeHealthRequest.newBuilder()
                    .setVolumeId(state.getMetadata().getName()).setBackend(state.getSpec().getBackend()).build()));
        } catch (AgentException e) {
            LOG.fine(() -> "GetVolumeHealth of " + state.getMetadata().getName() + ": " + e.getMessage());
            return VolumeConditions.unreachable(state, e.getMessage());
        }
    }
}
