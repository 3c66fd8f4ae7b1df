package pillar.node.service;

import java.nio.file.Path;
import java.util.Map;

import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.NodeExpandVolumeRequest;
import pillar.api.csi.v1.NodeGetVolumeStatsRequest;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeUnpublishVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;

/** Node requests as kubelet sends them, for the tests. */
final class Csi {
    private Csi() {
    }

    static VolumeCapability fs(String fsType, Mode mode, String... flags) {
        return VolumeCapability.newBuilder()
                .setMount(VolumeCapability.MountVolume.newBuilder().setFsType(fsType).addAllMountFlags(java.util.List.of(flags)))
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode)).build();
    }

    static VolumeCapability ext4() {
        return fs("ext4", Mode.SINGLE_NODE_MULTI_WRITER);
    }

    static VolumeCapability block(Mode mode) {
        return VolumeCapability.newBuilder().setBlock(VolumeCapability.BlockVolume.getDefaultInstance())
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode)).build();
    }

    static NodeStageVolumeRequest stage(String volume, Path staging, VolumeCapability capability,
                                        Map<String, String> publishContext, Map<String, String> volumeContext) {
        return NodeStageVolumeRequest.newBuilder().setVolumeId(volume).setStagingTargetPath(staging.toString())
                .setVolumeCapability(capability).putAllPublishContext(publishContext)
                .putAllVolumeContext(volumeContext).build();
    }

    static NodeUnstageVolumeRequest unstage(String volume, Path staging) {
        return NodeUnstageVolumeRequest.newBuilder().setVolumeId(volume).setStagingTargetPath(staging.toString()).build();
    }

    static NodePublishVolumeRequest publish(String volume, Path staging, Path target, VolumeCapability capability,
                                            boolean readOnly) {
        return NodePublishVolumeRequest.newBuilder().setVolumeId(volume).setStagingTargetPath(staging.toString())
                .setTargetPath(target.toString()).setVolumeCapability(capability).setReadonly(readOnly).build();
    }

    static NodeUnpublishVolumeRequest unpublish(String volume, Path target) {
        return NodeUnpublishVolumeRequest.newBuilder().setVolumeId(volume).setTargetPath(target.toString()).build();
    }

    static NodeGetVolumeStatsRequest stats(String volume, Path path) {
        return NodeGetVolumeStatsRequest.newBuilder().setVolumeId(volume).setVolumePath(path.toString()).build();
    }

    static NodeExpandVolumeRequest expand(String volume, Path path, long requiredBytes) {
        return NodeExpandVolumeRequest.newBuilder().setVolumeId(volume).setVolumePath(path.toString())
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(requiredBytes)).build();
    }
}
