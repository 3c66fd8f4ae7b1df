package pillar.sandbox;

import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;

import pillar.api.context.PublishContext;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;

/** A volume staged and published on one node, as kubelet leaves it for a running pod. */
record Attached(KubeletNode node, Volume volume, Map<String, String> publishContext, VolumeCapability capability,
                Path staging, Path target, boolean block) {
    static Attached attach(CsiController controller, KubeletNode node, Volume volume, VolumeCapability capability,
                           boolean readOnly) {
        String pv = volume.getVolumeId();
        Map<String, String> context = controller.publish(volume, node.nodeId(), capability, readOnly);
        boolean block = capability.hasBlock();
        Path staging = node.stagingPath(volume.getVolumeId(), pv, block);
        node.stage(volume, context, staging, capability);
        Path target = node.targetPath(UUID.randomUUID().toString(), pv, block);
        node.publish(volume, context, staging, target, capability, readOnly);
        return new Attached(node, volume, context, capability, staging, target, block);
    }

    String nqn() {
        return publishContext.get(PublishContext.NQN);
    }

    /** NodeUnpublish, NodeUnstage and ControllerUnpublish: the pod and the attachment are gone. */
    void detach(CsiController controller) {
        node.unpublish(volume.getVolumeId(), target);
        node.unstage(volume.getVolumeId(), staging);
        controller.unpublish(volume.getVolumeId(), node.nodeId());
    }
}
