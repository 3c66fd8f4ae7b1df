package pillar.controller.volume.create;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.logging.Logger;

import pillar.api.csi.v1.VolumeCapability;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.api.value.VolumeName;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.volume.request.Capabilities;
import pillar.controller.volume.state.VolumeStates;
import pillar.runtime.server.CsiException;

/**
 * The adoption of an existing zvol, dataset or LV that a static PersistentVolume names, on its first
 * ControllerPublishVolume, before the publish itself. As CreateVolume's: the state is written first
 * (its UID the new lifecycle; settings resolved and checked by the {@link Planner}; parameters the
 * pillar volume attributes, {@link Adoption#of} marking it), then the {@link Provisioner} drives the
 * agent, AdoptVolume in place of CreateVolume (the size the agent reports recorded), then ExportVolume.
 * A retry, or the next publish after a crash, resumes at the recorded phase with the same lifecycle;
 * the agent answers an adoption it made for that lifecycle as it is.
 *
 * <p>A refused adoption keeps its state (phase Creating): the retry once the operator has fixed the
 * storage node resumes it with the same token, whether or not the agent wrote its fencing mark. A retry
 * with other attributes (a PersistentVolume made again) replaces an adoption the agent never confirmed;
 * DeleteVolume and the removal of an incomplete state by hand only forget one (see {@link LifecycleEnd#forget}).
 * A volume whose state exists already (adopted, or created by CreateVolume) is published as recorded:
 * the attributes must name its store and protocol.
 */
public final class Adopter {
    private static final Logger LOG = Logger.getLogger(Adopter.class.getName());
    /** An adoption's spec.capacityBytes: it asks for no least size (the agent's min_size_bytes 0); status records the size found. */
    static final ByteSize ANY_SIZE = ByteSize.of(1);

    private final VolumeStates states;
    private final Planner planner;
    private final Provisioner provisioner;
    private final LifecycleEnd end;

    public Adopter(VolumeStates states, Planner planner, Provisioner provisioner, LifecycleEnd end) {
        this.states = states;
        this.planner = planner;
        this.provisioner = provisioner;
        this.end = end;
    }

    /** Adopts the volume, unless a state of it exists already; afterwards it is exported (or a publish refuses it as today). */
    public void adopt(VolumeId id, VolumeCapability capability, AdoptParameters parameters) {
        Optional<PillarVolumeState> existing = states.get(id);
        if (existing.isPresent() && !replaced(existing.get(), parameters)) {
            PillarVolumeState state = existing.get();
            if (!state.getSpec().getStore().equals(parameters.store()) || !state.getSpec().getProtocol().equals(parameters.protocol())) {
                throw CsiException.precondition("volume " + id + " is a pillar-csi volume of PillarStore " + state.getSpec().getStore()
                        + " over PillarProtocol " + state.getSpec().getProtocol() + "; the PersistentVolume's attributes name store "
                        + parameters.store() + " and protocol " + parameters.protocol() + ": correct them");
            }
            if (Adoption.of(state.getSpec())) {
                provisioner.complete(state);
            }
            return;
        }
        planner.requireKnown(parameters.store(), parameters.protocol());
        Capabilities.Requested requested = Capabilities.fit(Capabilities.forCreate(List.of(capability), parameters.fsType()),
                planner.protocolKind(parameters.protocol()));
        PillarVolumeState planned = planner.plan(VolumeName.of(id.value()), id, requested, ANY_SIZE, parameters.asCreate(),
                parameters.raw());
        planned.getSpec().setBackendOptions(new TreeMap<>()); // nothing is created: no creation settings apply
        PillarVolumeState state = states.create(planned);
        if (!Adoption.of(state.getSpec())) {
            throw CsiException.aborted("volume " + id + " was created meanwhile by another call; retry");
        }
        provisioner.complete(state);
    }

    /**
     * Whether an existing state was an adoption the agent never confirmed, made with other attributes,
     * and is now forgotten so that these start afresh.
     */
    private boolean replaced(PillarVolumeState state, AdoptParameters parameters) {
        Map<String, String> recorded = state.getSpec().getParameters();
        if (!Adoption.unconfirmed(state) || parameters.raw().equals(recorded)) {
            return false;
        }
        LOG.info(() -> "volume " + state.getMetadata().getName() + ": an adoption never confirmed by the agent, with attributes "
                + recorded + ", is replaced by one with " + parameters.raw());
        end.forget(state);
        return true;
    }
}
