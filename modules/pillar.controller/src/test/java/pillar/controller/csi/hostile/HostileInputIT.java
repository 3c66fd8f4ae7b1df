package pillar.controller.csi.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.ValidateVolumeCapabilitiesRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.csi.v1.VolumeContentSource;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;

/**
 * Hostile names, parameters, claim annotations, sizes and capabilities get the CSI spec's codes,
 * and nothing is created: no PillarVolumeState, no call that changes anything on the agent.
 */
class HostileInputIT {
    private static final String PVC_NAME = CreateParametersKeys.PVC_NAME;
    private static final String PVC_NAMESPACE = CreateParametersKeys.PVC_NAMESPACE;

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void hostileNamesAreInvalidArguments() {
        for (String name : List.of("", "../etc", "a/b", "-rf", "x".repeat(129), "a\u0000b", "pvc 1", "pvc\n1", "p\u00fcc", "$(reboot)")) {
            assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().createVolume(Requests.create(name, GIB)));
        }
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().deleteVolume(Requests.delete("")));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerPublishVolume(
                Requests.publish("", NODE_A, Requests.rwo(), false)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-1", "", Requests.rwo(), false)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerPublishVolume(
                ControllerPublishVolumeRequest.newBuilder().setVolumeId("pvc-1").setNodeId(NODE_A).build()));
        assertNothingCreated();
    }

    @Test
    void anIdThatCannotNameAVolumeOrANodeNamesNoneNotFoundOrAlreadyGone() {
        for (String id : List.of("../x", "PVC-1", "a/b", "x".repeat(64), "-a")) {
            // deleting or unpublishing what does not exist succeeds (the spec); publishing it is NOT_FOUND
            harness.csi().deleteVolume(Requests.delete(id));
            harness.csi().controllerUnpublishVolume(Requests.unpublish(id, NODE_A));
            assertCode(Status.Code.NOT_FOUND, () -> harness.csi().controllerPublishVolume(
                    Requests.publish(id, NODE_A, Requests.rwo(), false)));
            assertCode(Status.Code.NOT_FOUND, () -> harness.csi().validateVolumeCapabilities(
                    ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId(id).addVolumeCapabilities(Requests.rwo()).build()));
            assertCode(Status.Code.NOT_FOUND, () -> harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest
                    .newBuilder().setVolumeId(id).setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build()));
        }
        // sanity: "ControllerPublishVolume should fail when the node does not exist" (its IDs are "fake-node-id-...")
        for (String node : List.of("some-fake-node-id", "worker-1", "nqn.2014-08.org/../x", "nqn.2014-08.org.x:"
                + "a".repeat(220), "nqn.x y")) {
            assertCode(Status.Code.NOT_FOUND, () -> harness.csi().controllerPublishVolume(
                    Requests.publish("pvc-1", node, Requests.rwo(), false)));
        }
        // sanity: "... should fail when no volume capability is provided": a missing argument comes before NOT_FOUND
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerPublishVolume(ControllerPublishVolumeRequest
                .newBuilder().setVolumeId("fake-vol-id-1234").setNodeId("fake-node-id-1234").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().validateVolumeCapabilities(
                ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("Fake_Vol").build()));
        assertNothingCreated();
    }

    @Test
    void hostileParametersAreInvalidArguments() {
        List<Map<String, String>> hostile = List.of(
                Map.of(StorageClassParameters.STORE, CsiHarness.STORE),
                Map.of(StorageClassParameters.PROTOCOL, CsiHarness.PROTOCOL),
                Requests.parameters(StorageClassParameters.STORE, "../fast"),
                Requests.parameters(StorageClassParameters.STORE, "Fast"),
                Requests.parameters(StorageClassParameters.PROTOCOL, "tcp;rm -rf /"),
                Requests.parameters("pillar.csi.io/foo", "bar"),
                Requests.parameters("csi.storage.k8s.io/provisioner-secret-name", "x"),
                Requests.parameters(StorageClassParameters.VOLBLOCKSIZE, "3K"),
                Requests.parameters(StorageClassParameters.VOLBLOCKSIZE, "16K"), // a zfs setting on an LVM store
                Requests.parameters(StorageClassParameters.MKFS_OPTIONS, "-O ^has_journal; rm -rf /"),
                Requests.parameters(StorageClassParameters.MKFS_OPTIONS, "-m 0\n-E x"),
                Requests.parameters(StorageClassParameters.FS_TYPE, "btrfs"),
                Requests.parameters(PVC_NAME, "data", PVC_NAMESPACE, "../kube-system"),
                Requests.parameters(PVC_NAME, "data"),
                many());
        for (Map<String, String> parameters : hostile) {
            assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().createVolume(
                    Requests.create("pvc-1", GIB, Requests.rwo(), parameters)));
        }
        assertNothingCreated();
    }

    @Test
    void hostileClaimAnnotationsAreInvalidArguments() {
        for (Map<String, String> annotations : List.of(Map.of(StorageClassParameters.MKFS_OPTIONS, "$(reboot)"),
                Map.of(StorageClassParameters.VOLBLOCKSIZE, "16K"),
                Map.of(StorageClassParameters.STORE, "another-store"),
                Map.of("pillar.csi.io/volblocksiz", "16K"))) {
            harness.client().resource(new PersistentVolumeClaimBuilder().withNewMetadata().withNamespace("apps").withName("data")
                    .withAnnotations(annotations).endMetadata().build()).createOr(c -> c.update());
            assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().createVolume(Requests.create("pvc-1", GIB, Requests.rwo(),
                    Requests.parameters(PVC_NAME, "data", PVC_NAMESPACE, "apps"))));
        }
        assertNothingCreated();
    }

    @Test
    void hostileSizesAreOutOfRangeOrInvalid() {
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().createVolume(Requests.create("pvc-1", -1)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> harness.csi().createVolume(Requests.create("pvc-1", Long.MAX_VALUE)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> harness.csi().createVolume(Requests.create("pvc-1", (1L << 50) + 1)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> harness.csi().createVolume(withRange(2 * GIB, GIB)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> harness.csi().createVolume(withRange(GIB + 1, GIB + 2)));
        assertCode(Status.Code.OUT_OF_RANGE, () -> harness.csi().createVolume(withRange(0, 1)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().createVolume(withRange(0, -5)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder()
                .setVolumeId("pvc-1").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder()
                .setVolumeId("pvc-1").setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(-1)).build()));
        assertNothingCreated();
    }

    @Test
    void unsupportedCapabilitiesAreInvalidAndMissingSourcesNotFound() {
        List<List<VolumeCapability>> hostile = List.of(List.of(),
                List.of(Requests.mount(Mode.MULTI_NODE_MULTI_WRITER, "ext4")),
                List.of(Requests.block(Mode.MULTI_NODE_SINGLE_WRITER)),
                List.of(Requests.mount(Mode.UNKNOWN, "ext4")),
                List.of(VolumeCapability.newBuilder().setAccessMode(VolumeCapability.AccessMode.newBuilder()
                        .setMode(Mode.SINGLE_NODE_WRITER)).build()),
                List.of(Requests.mount(Mode.SINGLE_NODE_WRITER, "btrfs")),
                List.of(Requests.rwo(), Requests.block(Mode.SINGLE_NODE_WRITER)),
                List.of(Requests.rwo(), Requests.mount(Mode.SINGLE_NODE_WRITER, "xfs")),
                List.of(VolumeCapability.newBuilder().setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4")
                        .addMountFlags("rw,exec")).setAccessMode(VolumeCapability.AccessMode.newBuilder()
                        .setMode(Mode.SINGLE_NODE_WRITER)).build()));
        for (List<VolumeCapability> capabilities : hostile) {
            assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().createVolume(CreateVolumeRequest.newBuilder()
                    .setName("pvc-1").addAllVolumeCapabilities(capabilities).putAllParameters(Requests.parameters()).build()));
        }
        // a source that does not exist is NOT_FOUND (CSI's code for it), and nothing is made
        assertCode(Status.Code.NOT_FOUND, () -> harness.csi().createVolume(Requests.create("pvc-1", GIB).toBuilder()
                .setVolumeContentSource(VolumeContentSource.newBuilder().setVolume(VolumeContentSource.VolumeSource.newBuilder()
                        .setVolumeId("pvc-0"))).build()));
        assertCode(Status.Code.NOT_FOUND, () -> harness.csi().createVolume(Requests.create("pvc-1", GIB).toBuilder()
                .setVolumeContentSource(VolumeContentSource.newBuilder().setSnapshot(VolumeContentSource.SnapshotSource.newBuilder()
                        .setSnapshotId("ps-nothing"))).build()));
        assertNothingCreated();
    }

    private static CreateVolumeRequest withRange(long required, long limit) {
        return Requests.create("pvc-1", 0).toBuilder()
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(required).setLimitBytes(limit)).build();
    }

    private static Map<String, String> many() {
        Map<String, String> parameters = new TreeMap<>(Requests.parameters());
        for (int i = 0; i < 40; i++) {
            parameters.put("k" + i, "v");
        }
        return parameters;
    }

    private void assertNothingCreated() {
        assertThat(harness.states()).isEmpty();
        // only reads: the store's discovery and its orphan report
        assertThat(harness.fakeAgents().calls()).allMatch(c -> c.startsWith("GetCapabilities") || c.startsWith("GetCapacity")
                || c.startsWith("ListVolumes") || c.startsWith("ListExports"));
        assertThat(harness.fakeAgent().volumes()).isEmpty();
        assertThat(harness.fakeAgent().exports()).isEmpty();
    }

    /** The keys external-provisioner adds with --extra-create-metadata. */
    private static final class CreateParametersKeys {
        static final String PVC_NAME = "csi.storage.k8s.io/pvc/name";
        static final String PVC_NAMESPACE = "csi.storage.k8s.io/pvc/namespace";
    }
}
