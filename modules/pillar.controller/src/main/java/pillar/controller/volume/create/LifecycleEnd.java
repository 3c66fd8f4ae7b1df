package pillar.controller.volume.create;

import java.util.EnumSet;
import java.util.Set;
import java.util.logging.Logger;

import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.runtime.server.CsiException;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.Steps;
import pillar.controller.volume.publish.HostAuthentication;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;

/**
 * The one way a volume's lifecycle ends (DeleteVolume, the roll-back of a refused create, the
 * clean-up of an abandoned create): phase Deleting with a new generation, written by
 * compare-and-swap from one of the phases the caller allows and only while nothing is published;
 * then the agent's fenced DeleteVolume (unexport, destroy, tombstone), skipped for a Pending state
 * the agent was never asked about; then the Secrets of its keys and the state. Every step is idempotent,
 * so a retry after a failure anywhere finishes the job; a state already gone is success.
 */
public final class LifecycleEnd {
    private static final Logger LOG = Logger.getLogger(LifecycleEnd.class.getName());

    private final VolumeStates states;
    private final Steps steps;
    private final AgentClient agents;
    private final HostAuthentication auth;

    public LifecycleEnd(VolumeStates states, Steps steps, AgentClient agents, HostAuthentication auth) {
        this.states = states;
        this.steps = steps;
        this.agents = agents;
        this.auth = auth;
    }

    /**
     * Ends the lifecycle of {@code state} on {@code target}.
     *
     * @param from the phases it may be ended from; another phase (seen in the compare-and-swap) is ABORTED
     */
    public void end(PillarVolumeState state, AgentTarget target, Set<VolumePhase> from) {
        VolumeId id = VolumeId.of(state.getMetadata().getName());
        if (Records.phase(state) != VolumePhase.Pending) {
            state = steps.advance(state, from, VolumePhase.Deleting, s -> {
                if (!s.getPublications().isEmpty()) {
                    throw CsiException.precondition("volume " + id + " was published meanwhile to " + s.getPublications());
                }
            });
            agents.deleteVolume(target, DeleteVolumeRequest.newBuilder().setToken(Records.token(state).toProto())
                    .setVolumeId(id.value()).setBackend(state.getSpec().getBackend()).build());
        }
        if (state.getSpec().getExport() != null && state.getSpec().getExport().hasPublicationKeys()) {
            auth.deleted(state);
        }
        EnumSet<VolumePhase> deletable = EnumSet.of(VolumePhase.Pending, VolumePhase.Deleting);
        states.delete(state, s -> Records.publications(s).isEmpty() && deletable.contains(Records.phase(s)));
        String lifecycle = state.getMetadata().getUid();
        LOG.info(() -> "volume " + id + " deleted; lifecycle " + lifecycle + " ended");
    }

    /**
     * Ends the lifecycle of an adoption the agent never confirmed ({@link Adoption#unconfirmed}) in the
     * controller alone: the Secrets of its keys and its state go, never the agent's volume, which stays the operator's
     * with its data (and whatever mark a lost answer left, which a later adoption of this lifecycle's token
     * would have found). Only while nothing is published and it is still unconfirmed; a state gone is success.
     */
    public void forget(PillarVolumeState state) {
        if (state.getSpec().getExport() != null && state.getSpec().getExport().hasPublicationKeys()) {
            auth.deleted(state);
        }
        states.delete(state, s -> Records.publications(s).isEmpty() && Adoption.unconfirmed(s));
        LOG.info(() -> "volume " + state.getMetadata().getName() + ": adoption forgotten (lifecycle " + state.getMetadata().getUid()
                + "); its volume on the agent is untouched");
    }
}
