package pillar.controller.volume.read;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.logging.Logger;

import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.csi.v1.VolumeCondition;
import pillar.runtime.server.CsiException;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.volume.AgentLocator;

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

    public VolumeHealthReader(AgentClient agents, AgentLocator locator) {
        this.agents = agents;
        this.locator = locator;
    }

    /** The volume's condition now. */
    public VolumeCondition condition(PillarVolumeState state) {
        return condition(state, locate(state.getSpec().getAgent()));
    }

    /**
     * The conditions of one listing: each agent is located once (one read of its PillarAgent), however
     * many of its volumes the listing asks about; without it a page of 10,000 volumes read the same
     * PillarAgent 10,000 times. Safe to call from the listing's concurrent threads.
     */
    public Function<PillarVolumeState, VolumeCondition> forListing() {
        Map<String, Located> located = new ConcurrentHashMap<>();
        return state -> condition(state, located.computeIfAbsent(state.getSpec().getAgent(), this::locate));
    }

    private VolumeCondition condition(PillarVolumeState state, Located agent) {
        if (agent.target() == null) {
            return VolumeConditions.unreachable(state, agent.problem());
        }
        try {
            return VolumeConditions.of(state, agents.getVolumeHealth(agent.target(), GetVolumeHealthRequest.newBuilder()
                    .setVolumeId(state.getMetadata().getName()).setBackend(state.getSpec().getBackend()).build()));
        } catch (AgentException e) {
            LOG.fine(() -> "GetVolumeHealth of " + state.getMetadata().getName() + ": " + e.getMessage());
            return VolumeConditions.unreachable(state, e.getMessage());
        }
    }

    private Located locate(String agentName) {
        try {
            return new Located(locator.target(agentName), null);
        } catch (CsiException e) {
            return new Located(null, e.getMessage());
        }
    }

    /** Where an agent is dialled, or why it cannot be. */
    private record Located(AgentTarget target, String problem) {
    }
}
