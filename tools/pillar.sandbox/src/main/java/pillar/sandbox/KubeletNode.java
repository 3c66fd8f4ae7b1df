package pillar.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.NodeExpandVolumeRequest;
import pillar.api.csi.v1.NodeExpandVolumeResponse;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGetVolumeStatsRequest;
import pillar.api.csi.v1.NodeGetVolumeStatsResponse;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeUnpublishVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.server.Channels;

/**
 * One worker as kubelet drives its node plugin: the node's CSI socket, the kubelet root directory
 * and the paths kubelet derives from it (its layout since Kubernetes 1.24: a staging directory per
 * volume handle, a target per pod), and the node ID the node reports (NodeGetInfo), which the
 * attacher passes to ControllerPublishVolume.
 */
final class KubeletNode implements AutoCloseable {
    private final Path socket;
    private final Path kubeletDir;
    private final ManagedChannel channel;
    private String nodeId;

    KubeletNode(Path socket, Path kubeletDir) {
        this.socket = socket;
        this.kubeletDir = kubeletDir;
        this.channel = Channels.unix(socket);
    }

    Path socket() {
        return socket;
    }

    ManagedChannel channel() {
        return channel;
    }

    Path kubeletDir() {
        return kubeletDir;
    }

    NodeGrpc.NodeBlockingStub stub() {
        return NodeGrpc.newBlockingStub(channel).withDeadlineAfter(CsiController.CALL_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    /** NodeGetInfo's node ID (asked once, as node-driver-registrar does). */
    String nodeId() {
        if (nodeId == null) {
            nodeId = stub().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId();
        }
        return nodeId;
    }

    /** The staging path kubelet gives NodeStageVolume, created as kubelet creates it. */
    Path stagingPath(String volumeId, String pvName, boolean block) {
        Path path = block ? kubeletDir.resolve("plugins/kubernetes.io/csi/volumeDevices/staging").resolve(pvName)
                : kubeletDir.resolve("plugins/kubernetes.io/csi/pillar.csi.io").resolve(sha256(volumeId)).resolve("globalmount");
        return mkdirs(path);
    }

    /** The target path of a pod; kubelet creates its parent, the node plugin the target itself. */
    Path targetPath(String podUid, String pvName, boolean block) {
        Path path = block ? kubeletDir.resolve("plugins/kubernetes.io/csi/volumeDevices/publish").resolve(pvName).resolve(podUid)
                : kubeletDir.resolve("pods").resolve(podUid).resolve("volumes/kubernetes.io~csi").resolve(pvName).resolve("mount");
        mkdirs(path.getParent());
        return path;
    }

    void stage(Volume volume, Map<String, String> publishContext, Path staging, VolumeCapability capability) {
        stub().nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(volume.getVolumeId())
                .putAllPublishContext(publishContext).setStagingTargetPath(staging.toString())
                .setVolumeCapability(capability).putAllVolumeContext(volume.getVolumeContextMap()).build());
    }

    void publish(Volume volume, Map<String, String> publishContext, Path staging, Path target,
                 VolumeCapability capability, boolean readOnly) {
        stub().nodePublishVolume(NodePublishVolumeRequest.newBuilder().setVolumeId(volume.getVolumeId())
                .putAllPublishContext(publishContext).setStagingTargetPath(staging.toString())
                .setTargetPath(target.toString()).setVolumeCapability(capability).setReadonly(readOnly)
                .putAllVolumeContext(volume.getVolumeContextMap()).build());
    }

    NodeExpandVolumeResponse expand(String volumeId, Path target, Path staging, long bytes, VolumeCapability capability) {
        return stub().nodeExpandVolume(NodeExpandVolumeRequest.newBuilder().setVolumeId(volumeId)
                .setVolumePath(target.toString()).setStagingTargetPath(staging.toString())
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes)).setVolumeCapability(capability)
                .build());
    }

    NodeGetVolumeStatsResponse stats(String volumeId, Path target, Path staging) {
        return stub().nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder().setVolumeId(volumeId)
                .setVolumePath(target.toString()).setStagingTargetPath(staging.toString()).build());
    }

    void unpublish(String volumeId, Path target) {
        stub().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder().setVolumeId(volumeId)
                .setTargetPath(target.toString()).build());
    }

    void unstage(String volumeId, Path staging) {
        stub().nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(volumeId)
                .setStagingTargetPath(staging.toString()).build());
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }

    private static Path mkdirs(Path path) {
        try {
            return Files.createDirectories(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
