package pillar.bench.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.ControllerUnpublishVolumeRequest;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.DeleteVolumeRequest;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeUnpublishVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.controller.crd.StorageClassParameters;

/**
 * One volume's life as Kubernetes drives it, call by call, each call timed as its caller sees it
 * (external-provisioner, external-attacher, kubelet): CreateVolume, ControllerPublishVolume,
 * NodeStageVolume, NodePublishVolume, NodeUnpublishVolume, NodeUnstageVolume,
 * ControllerUnpublishVolume, DeleteVolume. The first half ({@link #attach}) leaves a volume in use
 * by a pod; the second ({@link #detach}) removes it.
 */
final class Lifecycle {
    static final List<String> CALLS = List.of("CreateVolume", "ControllerPublishVolume", "NodeStageVolume", "NodePublishVolume",
            "NodeUnpublishVolume", "NodeUnstageVolume", "ControllerUnpublishVolume", "DeleteVolume");
    static final VolumeCapability RWO = VolumeCapability.newBuilder()
            .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
            .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
            .build();

    /** Receives each call's time (nanoseconds). */
    interface Timings {
        void record(String call, long nanos);
    }

    private final Cluster cluster;
    private final String name;
    private final Timings timings;
    private String volumeId;
    private Path staging;
    private Path target;

    Lifecycle(Cluster cluster, String name, Timings timings) {
        this.cluster = cluster;
        this.name = name;
        this.timings = timings;
    }

    /** Create, publish to the node, stage, publish to a pod. */
    void attach() {
        volumeId = timed("CreateVolume", () -> cluster.controller().createVolume(CreateVolumeRequest.newBuilder().setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(Cluster.VOLUME_BYTES)).addVolumeCapabilities(RWO)
                .putParameters(StorageClassParameters.STORE, PillarObjects.STORE)
                .putParameters(StorageClassParameters.PROTOCOL, PillarObjects.PROTOCOL).build())).getVolume().getVolumeId();
        Map<String, String> context = timed("ControllerPublishVolume", () -> cluster.controller().controllerPublishVolume(
                ControllerPublishVolumeRequest.newBuilder().setVolumeId(volumeId).setNodeId(cluster.nodeId())
                        .setVolumeCapability(RWO).build())).getPublishContextMap();
        // the directories kubelet makes before it calls
        staging = directory(cluster.kubelet().resolve("plugins/kubernetes.io/csi/pillar.csi.io").resolve(volumeId))
                .resolve("globalmount");
        target = directory(cluster.kubelet().resolve("pods/pod-" + name + "/volumes/kubernetes.io~csi").resolve(volumeId))
                .resolve("mount");
        timed("NodeStageVolume", () -> cluster.node().nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(volumeId)
                .setStagingTargetPath(staging.toString()).setVolumeCapability(RWO).putAllPublishContext(context).build()));
        timed("NodePublishVolume", () -> cluster.node().nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                .setVolumeId(volumeId).setStagingTargetPath(staging.toString()).setTargetPath(target.toString())
                .setVolumeCapability(RWO).build()));
    }

    /** Unpublish from the pod, unstage, unpublish from the node, delete. */
    void detach() {
        timed("NodeUnpublishVolume", () -> cluster.node().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
                .setVolumeId(volumeId).setTargetPath(target.toString()).build()));
        timed("NodeUnstageVolume", () -> cluster.node().nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder()
                .setVolumeId(volumeId).setStagingTargetPath(staging.toString()).build()));
        timed("ControllerUnpublishVolume", () -> cluster.controller().controllerUnpublishVolume(
                ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(volumeId).setNodeId(cluster.nodeId()).build()));
        timed("DeleteVolume", () -> cluster.controller().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build()));
        removeDirectories();
    }

    private void removeDirectories() {
        try {
            for (Path p = target; !p.equals(cluster.kubelet().resolve("pods")); p = p.getParent()) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(staging);
            Files.deleteIfExists(staging.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("kubelet's clean-up of " + volumeId, e);
        }
    }

    private <T> T timed(String call, Supplier<T> action) {
        long start = System.nanoTime();
        T result = action.get();
        timings.record(call, System.nanoTime() - start);
        return result;
    }

    private static Path directory(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
