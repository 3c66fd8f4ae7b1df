package pillar.controller.volume.create;

import java.util.Map;
import java.util.Set;

import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentException;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.state.Records;
import pillar.runtime.server.CsiException;

/**
 * What sets an adopted volume's state apart, and what the agent's refusals of an adoption mean to
 * the operator. A state is an adoption's when its parameters carry {@link StorageClassParameters#ADOPT}
 * (only an {@link Adopter} writes that key; CreateVolume refuses it). Until the agent has answered
 * AdoptVolume (phases Pending and Creating) the zvol, dataset or LV is not known to be this
 * installation's: such a state is only ever forgotten, never ended on the agent, whose DeleteVolume
 * would destroy what an operator named.
 */
public final class Adoption {
    private static final Set<VolumePhase> UNCONFIRMED = Set.of(VolumePhase.Pending, VolumePhase.Creating);

    private Adoption() {
    }

    /** Whether the state is an adoption's. */
    public static boolean of(PillarVolumeStateSpec spec) {
        Map<String, String> parameters = spec.getParameters();
        return parameters != null && "true".equals(parameters.get(StorageClassParameters.ADOPT));
    }

    /** Whether the state is an adoption the agent has not confirmed: its volume must never be deleted through it. */
    public static boolean unconfirmed(PillarVolumeState state) {
        return of(state.getSpec()) && UNCONFIRMED.contains(Records.phase(state));
    }

    /**
     * The CSI error for an agent's refusal of AdoptVolume: what the operator should check, by volume and
     * store. Refusals without a meaning of their own here (OUT_OF_RANGE, a fencing refusal, transport
     * failures) are the agent's error as it is, mapped like every other agent call's.
     */
    static RuntimeException refusal(AgentException e, VolumeId id, PillarVolumeStateSpec spec) {
        String where = "volume " + id + " in PillarStore " + spec.getStore() + " (backend " + spec.getBackend() + " on agent "
                + spec.getAgent() + ")";
        if (e.kind() == AgentException.Kind.UNSUPPORTED) {
            return CsiException.precondition("agent " + spec.getAgent() + " is too old to adopt volumes: upgrade it (" + where + ")");
        }
        if (e.kind() == AgentException.Kind.NOT_FOUND) {
            return CsiException.notFound("no volume " + id + " in store " + spec.getStore() + ": the PersistentVolume's volumeHandle"
                    + " must be the name of an existing LV, zvol or dataset of backend " + spec.getBackend() + " (" + e.detail() + ")");
        }
        if (e.reason() == AgentErrorReason.AGENT_ERROR_REASON_VOLUME_FOREIGN) {
            return CsiException.precondition(where + " belongs to another pillar-csi installation (its ownership mark names it):"
                    + " it is not adopted; check that the PersistentVolume names the right volume (" + e.detail() + ")");
        }
        if (e.reason() == AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE) {
            return CsiException.precondition(where + " is in use on the storage node (mounted, held by a process or a device, or"
                    + " exported): it is not adopted; stop whatever uses it there, and the next attempt adopts it (" + e.detail() + ")");
        }
        return e;
    }
}
