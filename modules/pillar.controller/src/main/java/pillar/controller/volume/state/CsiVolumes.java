package pillar.controller.volume.state;

import pillar.api.context.VolumeContext;
import pillar.api.csi.v1.Volume;
import pillar.runtime.server.Fabric;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.VolumeContentSource;

/**
 * The CSI Volume of a PillarVolumeState, as CreateVolume returns it, ControllerGetVolume reads it and ListVolumes lists it: its ID,
 * its size now, the volume context the node needs and the fabric topology segment. A pure function.
 */
public final class CsiVolumes {
    private CsiVolumes() {
    }

    /** The CSI content source of a recorded one. */
    public static pillar.api.csi.v1.VolumeContentSource contentSource(VolumeContentSource recorded) {
        pillar.api.csi.v1.VolumeContentSource.Builder out = pillar.api.csi.v1.VolumeContentSource.newBuilder();
        if (recorded.getSnapshotId() != null) {
            out.setSnapshot(pillar.api.csi.v1.VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(recorded.getSnapshotId()));
        } else {
            out.setVolume(pillar.api.csi.v1.VolumeContentSource.VolumeSource.newBuilder().setVolumeId(recorded.getVolumeId()));
        }
        return out.build();
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
        if (spec.getContentSource() != null) {
            volume.setContentSource(contentSource(spec.getContentSource()));
        }
        return volume.build();
    }
}
