package pillar.sandbox;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.ControllerExpandVolumeResponse;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.ControllerUnpublishVolumeRequest;
import pillar.api.csi.v1.CreateSnapshotRequest;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.DeleteSnapshotRequest;
import pillar.api.csi.v1.DeleteVolumeRequest;
import pillar.api.csi.v1.Snapshot;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeContentSource;
import pillar.runtime.server.Channels;

/**
 * The controller's CSI socket, called as the sidecars call it: external-provisioner (CreateVolume,
 * DeleteVolume), external-attacher (ControllerPublish/Unpublish), external-resizer
 * (ControllerExpandVolume) and external-snapshotter (CreateSnapshot, DeleteSnapshot). Every call
 * has a deadline fit for emulation.
 */
final class CsiController implements AutoCloseable {
    static final long CALL_DEADLINE_SECONDS = 300;

    private final Path socket;
    private final ManagedChannel channel;

    CsiController(Path socket) {
        this.socket = socket;
        this.channel = Channels.unix(socket);
    }

    Path socket() {
        return socket;
    }

    ControllerGrpc.ControllerBlockingStub stub() {
        return ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    ManagedChannel channel() {
        return channel;
    }

    /** As external-provisioner asks for a claim of {@code bytes}: the StorageClass parameters, one capability. */
    Volume create(String name, long bytes, VolumeCapability capability, Map<String, String> parameters) {
        return stub().createVolume(CreateVolumeRequest.newBuilder().setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
                .addVolumeCapabilities(capability).putAllParameters(parameters).build()).getVolume();
    }

    /** {@link #create} with several capabilities (a claim with several access modes). */
    Volume createWithCapabilities(String name, long bytes, java.util.List<VolumeCapability> capabilities,
                                  Map<String, String> parameters) {
        return stub().createVolume(CreateVolumeRequest.newBuilder().setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
                .addAllVolumeCapabilities(capabilities).putAllParameters(parameters).build()).getVolume();
    }

    /** As external-attacher does for a VolumeAttachment; returns the publish context. */
    Map<String, String> publish(Volume volume, String nodeId, VolumeCapability capability, boolean readOnly) {
        return stub().controllerPublishVolume(ControllerPublishVolumeRequest.newBuilder()
                .setVolumeId(volume.getVolumeId()).setNodeId(nodeId).setVolumeCapability(capability)
                .setReadonly(readOnly).putAllVolumeContext(volume.getVolumeContextMap()).build()).getPublishContextMap();
    }

    void unpublish(String volumeId, String nodeId) {
        stub().controllerUnpublishVolume(ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(volumeId)
                .setNodeId(nodeId).build());
    }

    ControllerExpandVolumeResponse expand(String volumeId, long bytes, VolumeCapability capability) {
        return stub().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder().setVolumeId(volumeId)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes)).setVolumeCapability(capability)
                .build());
    }

    /** As external-provisioner asks for a claim with a dataSource (a VolumeSnapshot or a claim to clone). */
    Volume createFrom(String name, long bytes, VolumeCapability capability, Map<String, String> parameters,
                      VolumeContentSource source) {
        return stub().createVolume(CreateVolumeRequest.newBuilder().setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(bytes))
                .addVolumeCapabilities(capability).putAllParameters(parameters).setVolumeContentSource(source).build())
                .getVolume();
    }

    /** As external-snapshotter does for a VolumeSnapshotContent, with the metadata parameters it adds. */
    Snapshot snapshot(String name, String sourceVolumeId) {
        return stub().createSnapshot(CreateSnapshotRequest.newBuilder().setName(name).setSourceVolumeId(sourceVolumeId)
                .putParameters("csi.storage.k8s.io/volumesnapshot/name", "sandbox-snapshot")
                .putParameters("csi.storage.k8s.io/volumesnapshot/namespace", "default")
                .putParameters("csi.storage.k8s.io/volumesnapshotcontent/name", name).build()).getSnapshot();
    }

    void deleteSnapshot(String snapshotId) {
        stub().deleteSnapshot(DeleteSnapshotRequest.newBuilder().setSnapshotId(snapshotId).build());
    }

    static VolumeContentSource fromSnapshot(String snapshotId) {
        return VolumeContentSource.newBuilder().setSnapshot(VolumeContentSource.SnapshotSource.newBuilder()
                .setSnapshotId(snapshotId)).build();
    }

    static VolumeContentSource fromVolume(String volumeId) {
        return VolumeContentSource.newBuilder().setVolume(VolumeContentSource.VolumeSource.newBuilder()
                .setVolumeId(volumeId)).build();
    }

    /** The longest {@link #delete} goes on retrying an ABORTED answer (work still running in the agent). */
    static final java.time.Duration DELETE_RETRIES = java.time.Duration.ofMinutes(10);

    /**
     * DeleteVolume as external-provisioner sends it: an ABORTED answer (a linear LV still being zeroed in
     * the agent's background, with its progress) is retried every 2 s until OK, for at most
     * {@link #DELETE_RETRIES}; any other failure is thrown at once.
     */
    void delete(String volumeId) {
        long end = System.nanoTime() + DELETE_RETRIES.toNanos();
        while (true) {
            try {
                stub().deleteVolume(DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build());
                return;
            } catch (io.grpc.StatusRuntimeException e) {
                if (e.getStatus().getCode() != io.grpc.Status.Code.ABORTED || System.nanoTime() > end) {
                    throw e;
                }
            }
            try {
                Thread.sleep(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while DeleteVolume " + volumeId + " was retried", e);
            }
        }
    }

    @Override
    public void close() {
        channel.shutdownNow();
    }
}
