package pillar.controller.volume;

import pillar.api.context.VolumeContext;
import pillar.api.csi.v1.Volume;
import pillar.runtime.server.Fabric;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;

/**
 * The CSI Volume of a PillarVolumeState, as CreateVolume returns it, ControllerGetVolume reads it and ListVolumes lists it: its ID,
 * its size now, the volume context the node needs and the fabric topology segment. A pure function.
 */
public final class CsiVolumes {
    private CsiVolumes() {
    }

    public static Volume of(PillarVolumeState state) {
        PillarVolumeStateSpec spec = state.getSpec();
        Volume.Builder volume = Volume.newBuilder()
                .setVolumeId(state.getMetadata().getName())
                .setCapacityBytes(Records.capacity(state))
                .addAccessibleTopology(Fabric.segment())
                .putVolumeContext(VolumeContext.BACKEND, spec.getBackendKind());
        if (spec.getMkfsOptions() != null) {
            volume.putVolumeContext(VolumeContext.MKFS_OPTIONS, spec.getMkfsOptions());
        }
        return volume.build();
    }
}
