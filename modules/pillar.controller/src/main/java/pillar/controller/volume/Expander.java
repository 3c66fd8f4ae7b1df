package pillar.controller.volume;

import java.util.EnumSet;

import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeResponse;
import pillar.runtime.server.CsiException;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.request.Capabilities;
import pillar.controller.volume.request.Sizes;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;

/**
 * ControllerExpandVolume: the agent grows the zvol or LV (and tells the target), with a new
 * generation's token; the size it reports is recorded. A volume already as large as asked is
 * answered at once. A filesystem volume then needs the node to grow its filesystem; a block
 * volume does not.
 */
public final class Expander {
    private static final EnumSet<VolumePhase> GROWABLE = EnumSet.of(VolumePhase.Exporting, VolumePhase.Exported);

    private final VolumeStates states;
    private final Steps steps;
    private final AgentClient agents;
    private final AgentLocator locator;

    Expander(VolumeStates states, Steps steps, AgentClient agents, AgentLocator locator) {
        this.states = states;
        this.steps = steps;
        this.agents = agents;
        this.locator = locator;
    }

    public ControllerExpandVolumeResponse expand(VolumeId id, CapacityRange range) {
        long wanted = Sizes.forExpand(range).bytes();
        PillarVolumeState state = states.get(id).orElseThrow(() -> CsiException.notFound("volume " + id + " does not exist"));
        VolumePhase phase = Records.phase(state);
        if (!GROWABLE.contains(phase)) {
            throw CsiException.precondition("volume " + id + " cannot grow while " + phase);
        }
        // a block device's filesystem is grown by the node; an NFS dataset's refquota is all there is to grow
        boolean filesystem = state.getSpec().getVolumeMode() == PillarVolumeStateSpec.VolumeMode.Filesystem
                && !Capabilities.nfs(state.getSpec());
        long size = Records.capacity(state);
        if (size >= wanted) {
            if (range.getLimitBytes() != 0 && size > range.getLimitBytes()) {
                throw CsiException.outOfRange("volume " + id + " has " + size + " bytes, above limit_bytes " + range.getLimitBytes());
            }
            return response(size, filesystem);
        }
        AgentTarget target = locator.target(state.getSpec().getAgent());
        state = steps.advance(state, EnumSet.of(phase), phase, s -> { });
        long grown = agents.expandVolume(target, ExpandVolumeRequest.newBuilder().setToken(Records.token(state).toProto())
                .setVolumeId(id.value()).setBackend(state.getSpec().getBackend()).setRequiredBytes(wanted).build()).getSizeBytes();
        steps.record(state, EnumSet.of(phase), phase, s -> s.setCapacityBytes(grown));
        return response(grown, filesystem);
    }

    private static ControllerExpandVolumeResponse response(long size, boolean filesystem) {
        return ControllerExpandVolumeResponse.newBuilder().setCapacityBytes(size).setNodeExpansionRequired(filesystem).build();
    }
}
