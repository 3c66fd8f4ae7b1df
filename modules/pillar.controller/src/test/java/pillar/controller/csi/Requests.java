package pillar.controller.csi;

import java.util.Map;
import java.util.TreeMap;

import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.ControllerUnpublishVolumeRequest;
import pillar.api.csi.v1.CreateSnapshotRequest;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.DeleteSnapshotRequest;
import pillar.api.csi.v1.DeleteVolumeRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeContentSource;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.controller.crd.StorageClassParameters;

/** CSI requests as external-provisioner and external-attacher send them. */
public final class Requests {
    public static final String NODE_A = "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000001";
    public static final String NODE_B = "nqn.2014-08.org.nvmexpress:uuid:bbbbbbbb-0000-4000-8000-000000000002";

    private Requests() {
    }

    /** The parameters of the StorageClass generated for store {@value CsiHarness#STORE}, plus extra. */
    public static Map<String, String> parameters(String... extra) {
        Map<String, String> parameters = new TreeMap<>();
        parameters.put(StorageClassParameters.STORE, CsiHarness.STORE);
        parameters.put(StorageClassParameters.PROTOCOL, CsiHarness.PROTOCOL);
        for (int i = 0; i + 1 < extra.length; i += 2) {
            parameters.put(extra[i], extra[i + 1]);
        }
        return parameters;
    }

    public static VolumeCapability mount(Mode mode, String fsType) {
        return VolumeCapability.newBuilder().setMount(VolumeCapability.MountVolume.newBuilder().setFsType(fsType))
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode)).build();
    }

    public static VolumeCapability block(Mode mode) {
        return VolumeCapability.newBuilder().setBlock(VolumeCapability.BlockVolume.getDefaultInstance())
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(mode)).build();
    }

    public static VolumeCapability rwo() {
        return mount(Mode.SINGLE_NODE_WRITER, "ext4");
    }

    public static CreateVolumeRequest create(String name, long requiredBytes) {
        return create(name, requiredBytes, rwo(), parameters());
    }

    public static CreateVolumeRequest create(String name, long requiredBytes, VolumeCapability capability,
                                             Map<String, String> parameters) {
        return CreateVolumeRequest.newBuilder().setName(name)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(requiredBytes))
                .addVolumeCapabilities(capability).putAllParameters(parameters).build();
    }

    /** A CreateSnapshot as external-snapshotter sends it (with --extra-create-metadata). */
    public static CreateSnapshotRequest snapshot(String name, String sourceVolumeId) {
        return CreateSnapshotRequest.newBuilder().setName(name).setSourceVolumeId(sourceVolumeId)
                .putParameters("csi.storage.k8s.io/volumesnapshot/name", name)
                .putParameters("csi.storage.k8s.io/volumesnapshot/namespace", "default").build();
    }

    /** A CreateVolume of {@code requiredBytes} (0: unset) restored from a snapshot. */
    public static CreateVolumeRequest restore(String name, long requiredBytes, String snapshotId, Map<String, String> parameters) {
        return create(name, requiredBytes, rwo(), parameters).toBuilder().setVolumeContentSource(VolumeContentSource.newBuilder()
                .setSnapshot(VolumeContentSource.SnapshotSource.newBuilder().setSnapshotId(snapshotId))).build();
    }

    /** A CreateVolume of {@code requiredBytes} (0: unset) cloned from a volume. */
    public static CreateVolumeRequest clone(String name, long requiredBytes, String volumeId, Map<String, String> parameters) {
        return create(name, requiredBytes, rwo(), parameters).toBuilder().setVolumeContentSource(VolumeContentSource.newBuilder()
                .setVolume(VolumeContentSource.VolumeSource.newBuilder().setVolumeId(volumeId))).build();
    }

    public static DeleteSnapshotRequest deleteSnapshot(String snapshotId) {
        return DeleteSnapshotRequest.newBuilder().setSnapshotId(snapshotId).build();
    }

    public static DeleteVolumeRequest delete(String volumeId) {
        return DeleteVolumeRequest.newBuilder().setVolumeId(volumeId).build();
    }

    public static ControllerPublishVolumeRequest publish(String volumeId, String node, VolumeCapability capability,
                                                         boolean readonly) {
        return ControllerPublishVolumeRequest.newBuilder().setVolumeId(volumeId).setNodeId(node)
                .setVolumeCapability(capability).setReadonly(readonly).build();
    }

    /**
     * A static PersistentVolume's volume attributes that ask to adopt its volume on store
     * {@value CsiHarness#STORE} over {@value CsiHarness#PROTOCOL}, plus extra key-value pairs (which may replace those).
     */
    public static Map<String, String> adoption(String... extra) {
        Map<String, String> attributes = parameters(extra);
        attributes.putIfAbsent(StorageClassParameters.ADOPT, "true");
        return attributes;
    }

    /** A ControllerPublishVolume as external-attacher sends it for a static PersistentVolume with these attributes. */
    public static ControllerPublishVolumeRequest publish(String volumeId, String node, VolumeCapability capability,
                                                         Map<String, String> volumeAttributes) {
        return publish(volumeId, node, capability, false).toBuilder().putAllVolumeContext(volumeAttributes).build();
    }

    public static ControllerUnpublishVolumeRequest unpublish(String volumeId, String node) {
        return ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(volumeId).setNodeId(node).build();
    }
}
