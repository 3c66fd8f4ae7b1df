package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.sandbox.Volumes.MIB;
import static pillar.sandbox.Volumes.assertCode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

import io.grpc.ManagedChannel;
import io.grpc.Status.Code;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.Executable;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.ControllerPublishVolumeRequest;
import pillar.api.csi.v1.ControllerServiceCapability;
import pillar.api.csi.v1.ControllerUnpublishVolumeRequest;
import pillar.api.csi.v1.CreateVolumeRequest;
import pillar.api.csi.v1.DeleteVolumeRequest;
import pillar.api.csi.v1.GetCapacityRequest;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.GetPluginInfoResponse;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.csi.v1.ProbeRequest;
import pillar.api.csi.v1.ValidateVolumeCapabilitiesRequest;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.runtime.server.Driver;

/**
 * What the kubernetes-csi sanity suite (csi-test pkg/sanity) checks, in Java, against the running
 * sockets split as deployed (the controller's and the node's): each check names the upstream case
 * it mirrors ({@code sanity: "..."}), then what pillar-csi asserts beyond it. One volume goes
 * through the whole sequence create, publish, stage, publish, expand, unpublish, unstage,
 * unpublish, delete with every call made twice (idempotency), and nothing is left in the kernel.
 * Sanity's made-up IDs are its default generator's: volume {@code fake-vol-id-<10>}, node
 * {@code fake-node-id-<10>} (not a host NQN, so a node that does not exist). The node's checks
 * are in {@link NodeConformance}; ListVolumes' and ControllerGetVolume's in their own classes.
 */
final class CsiConformance {
    private final SuiteBed suite;
    private final CsiController controller;
    private final KubeletNode node;
    private final KubeletNode other;
    private final Map<String, String> parameters;
    private final VolumeCapability rwo = Capabilities.readWriteOnce(VolumeMode.EXT4, "ext4");
    private final String name = Volumes.pvName();
    private final List<DynamicTest> checks = new ArrayList<>();
    private KernelObjects before;
    private Volume volume;
    private Map<String, String> publishContext;

    CsiConformance(SuiteBed suite) {
        this.suite = suite;
        this.controller = suite.bed.controller();
        this.node = suite.bed.node();
        this.other = suite.nodeB;
        this.parameters = Lifecycle.provisionerParameters(suite.parameters(Backend.LVM_THIN, "ext4"), name);
    }

    /** A volume ID as csi-sanity's default generator makes one ("fake-vol-id-" and 10 characters of a UUID). */
    static String fakeVolumeId() {
        return "fake-vol-id-" + UUID.randomUUID().toString().substring(0, 10);
    }

    /** A node ID as csi-sanity's default generator makes one. */
    static String fakeNodeId() {
        return "fake-node-id-" + UUID.randomUUID().toString().substring(0, 10);
    }

    Stream<DynamicTest> checks() {
        Map<String, ManagedChannel> sockets = Map.of("controller", controller.channel(), "node", node.channel());
        sanity("Identity Service GetPluginCapabilities should return appropriate capabilities",
                "the same on both sockets: the controller service, topology, online expansion", () -> {
            for (var socket : sockets.entrySet()) {
                assertThat(IdentityGrpc.newBlockingStub(socket.getValue())
                        .getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
                        .as(socket.getKey() + " socket").containsExactlyElementsOf(Driver.pluginCapabilities())
                        .anySatisfy(c -> assertThat(c.getService().getType()).isEqualTo(PluginCapability.Service.Type.CONTROLLER_SERVICE))
                        .anySatisfy(c -> assertThat(c.getService().getType())
                                .isEqualTo(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS))
                        .anySatisfy(c -> assertThat(c.getVolumeExpansion().getType()).isEqualTo(PluginCapability.VolumeExpansion.Type.ONLINE));
            }
        });
        sanity("Identity Service Probe should return appropriate information", "ready on both sockets", () -> {
            for (var socket : sockets.entrySet()) {
                assertThat(IdentityGrpc.newBlockingStub(socket.getValue()).probe(ProbeRequest.getDefaultInstance())
                        .getReady().getValue()).as(socket.getKey() + " socket").isTrue();
            }
        });
        sanity("Identity Service GetPluginInfo should return appropriate information", "the driver's name and version on both"
                + " sockets", () -> {
            for (var socket : sockets.entrySet()) {
                GetPluginInfoResponse info = IdentityGrpc.newBlockingStub(socket.getValue())
                        .getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
                assertThat(info.getName()).as(socket.getKey() + " socket").isEqualTo(Driver.NAME)
                        .matches("^[a-zA-Z][A-Za-z0-9-.\\_]{0,61}[a-zA-Z]$");
                assertThat(info.getVendorVersion()).isNotEmpty();
            }
        });
        controllerSanity("ControllerGetCapabilities should return appropriate capabilities", "create/delete, publish/unpublish,"
                + " read-only publish, expand, capacity", () ->
                assertThat(controller.stub().controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                        .getCapabilitiesList()).extracting(c -> c.getRpc().getType())
                        .doesNotContain(ControllerServiceCapability.RPC.Type.UNKNOWN, ControllerServiceCapability.RPC.Type.UNRECOGNIZED)
                        .contains(ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME,
                        ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME, ControllerServiceCapability.RPC.Type.PUBLISH_READONLY,
                        ControllerServiceCapability.RPC.Type.EXPAND_VOLUME, ControllerServiceCapability.RPC.Type.GET_CAPACITY));
        controllerSanity("GetCapacity should return capacity (no optional values added)", "every store's; the StorageClass's"
                + " store more than 0 bytes", () -> {
            assertThat(controller.stub().getCapacity(GetCapacityRequest.getDefaultInstance()).getAvailableCapacity()).isPositive();
            assertThat(controller.stub().getCapacity(GetCapacityRequest.newBuilder().putAllParameters(parameters)
                    .addVolumeCapabilities(rwo).build()).getAvailableCapacity()).isPositive();
        });
        controllerSanity("CreateVolume should fail when no name is provided / when no volume capabilities are provided",
                "INVALID_ARGUMENT, also for ReadWriteMany", () -> {
            before = suite.snapshot();
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().createVolume(CreateVolumeRequest.newBuilder()
                    .putAllParameters(parameters).build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().createVolume(create().clearVolumeCapabilities().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().createVolume(create().clearVolumeCapabilities()
                    .addVolumeCapabilities(Capabilities.of(VolumeMode.EXT4, "ext4", Mode.MULTI_NODE_MULTI_WRITER)).build()));
        });
        controllerSanity("CreateVolume should return appropriate values SingleNodeWriter WithCapacity 1Gi / should not fail when"
                + " requesting to create a volume with already existing name and same capacity", "one volume, the size asked", () -> {
            volume = controller.stub().createVolume(create().build()).getVolume();
            assertThat(volume.getCapacityBytes()).isGreaterThanOrEqualTo(320 * MIB);
            assertThat(controller.stub().createVolume(create().build()).getVolume()).isEqualTo(volume);
        });
        controllerSanity("CreateVolume should fail when requesting to create a volume with already existing name and different"
                + " capacity", "ALREADY_EXISTS", () -> assertCode(Code.ALREADY_EXISTS,
                () -> controller.stub().createVolume(create().setCapacityRange(CapacityRange.newBuilder()
                        .setRequiredBytes(400 * MIB).setLimitBytes(400 * MIB)).build())));
        controllerSanity("CreateVolume should not fail when creating volume with maximum-length name", "a 128-character name"
                + " gets a volume (its ID hashed), deleted again", () -> {
            String longest = "sanity-controller-create-maxlen-" + "x".repeat(128 - 32);
            Volume created = controller.stub().createVolume(create().setName(longest).build()).getVolume();
            assertThat(created.getVolumeId()).startsWith("pv-").hasSizeLessThanOrEqualTo(63);
            controller.delete(created.getVolumeId());
        });
        controllerSanity("ValidateVolumeCapabilities should fail when no volume id is provided / when no volume capabilities are"
                + " provided", "INVALID_ARGUMENT", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().validateVolumeCapabilities(
                    ValidateVolumeCapabilitiesRequest.getDefaultInstance()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().validateVolumeCapabilities(
                    validate().clearVolumeCapabilities().build()));
        });
        controllerSanity("ValidateVolumeCapabilities should return appropriate values (no optional values added)", "its capability"
                + " confirmed, ReadWriteMany not", () -> {
            assertThat(controller.stub().validateVolumeCapabilities(validate().build()).getConfirmed().getVolumeCapabilitiesList())
                    .containsExactly(rwo);
            assertThat(controller.stub().validateVolumeCapabilities(validate().clearVolumeCapabilities().addVolumeCapabilities(
                    Capabilities.of(VolumeMode.EXT4, "ext4", Mode.MULTI_NODE_MULTI_WRITER)).build()).hasConfirmed()).isFalse();
        });
        controllerSanity("ValidateVolumeCapabilities should fail when the requested volume does not exist", "NOT_FOUND", () ->
                assertCode(Code.NOT_FOUND, () -> controller.stub().validateVolumeCapabilities(validate()
                        .setVolumeId(fakeVolumeId()).build())));
        controllerSanity("ControllerPublishVolume should fail when no volume id / no node id / no volume capability is provided",
                "INVALID_ARGUMENT, before whether they exist", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(
                    ControllerPublishVolumeRequest.getDefaultInstance()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(ControllerPublishVolumeRequest
                    .newBuilder().setVolumeId(fakeVolumeId()).build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(ControllerPublishVolumeRequest
                    .newBuilder().setVolumeId(fakeVolumeId()).setNodeId(fakeNodeId()).build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(publish().setVolumeCapability(
                    Capabilities.of(VolumeMode.BLOCK, "", Mode.SINGLE_NODE_WRITER)).build()));
        });
        controllerSanity("ControllerPublishVolume should fail when the volume does not exist", "NOT_FOUND", () -> {
            assertCode(Code.NOT_FOUND, () -> controller.stub().controllerPublishVolume(publish().setVolumeId(fakeVolumeId())
                    .setNodeId(fakeNodeId()).clearVolumeContext().build()));
            assertCode(Code.NOT_FOUND, () -> controller.stub().controllerPublishVolume(publish().setVolumeId(fakeVolumeId()).build()));
        });
        controllerSanity("ControllerPublishVolume should fail when the node does not exist", "NOT_FOUND, also for the ID"
                + " \"some-fake-node-id\"; nothing allowed on the target", () -> {
            assertCode(Code.NOT_FOUND, () -> controller.stub().controllerPublishVolume(publish().setNodeId(fakeNodeId()).build()));
            assertCode(Code.NOT_FOUND, () -> controller.stub().controllerPublishVolume(publish().setNodeId("some-fake-node-id").build()));
            assertThat(suite.snapshot().keysStartingWith("nvmet subsystem")).noneMatch(k -> k.contains(volume.getVolumeId())
                    && k.contains(" allowed host "));
        });
        controllerSanity("volume lifecycle should work / should be idempotent", "ControllerPublishVolume twice: the same publish"
                + " context", () -> {
            publishContext = controller.stub().controllerPublishVolume(publish().build()).getPublishContextMap();
            assertThat(controller.stub().controllerPublishVolume(publish().build()).getPublishContextMap()).isEqualTo(publishContext);
        });
        controllerSanity("ControllerPublishVolume should fail when the volume is already published but is incompatible",
                "read-only on the same node ALREADY_EXISTS; another node while ReadWriteOnce holds it FAILED_PRECONDITION", () -> {
            assertCode(Code.ALREADY_EXISTS, () -> controller.stub().controllerPublishVolume(publish().setReadonly(true).build()));
            assertCode(Code.FAILED_PRECONDITION, () -> controller.stub().controllerPublishVolume(publish()
                    .setNodeId(other.nodeId()).build()));
        });
        NodeConformance nodeChecks = new NodeConformance(node, suite.bed.layout().hostNqnFile(), () -> volume,
                () -> publishContext, rwo);
        nodeChecks.stageAndPublish().forEach(checks::add);
        expandSanity("should fail if no volume id is given / should fail if no capacity range is given", "INVALID_ARGUMENT", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerExpandVolume(expand().clearVolumeId().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerExpandVolume(expand().clearVolumeId()
                    .clearCapacityRange().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerExpandVolume(expand().clearCapacityRange().build()));
        });
        expandSanity("should work", "exactly the size asked (a multiple of 4 MiB), twice OK; an unknown volume NOT_FOUND", () -> {
            assertCode(Code.NOT_FOUND, () -> controller.stub().controllerExpandVolume(expand().setVolumeId(fakeVolumeId()).build()));
            assertThat(controller.stub().controllerExpandVolume(expand().build()).getCapacityBytes()).isEqualTo(448 * MIB);
            assertThat(controller.stub().controllerExpandVolume(expand().build()).getCapacityBytes()).isEqualTo(448 * MIB);
        });
        nodeChecks.expandAndUndo().forEach(checks::add);
        controllerSanity("ControllerUnpublishVolume should fail when no volume id is provided", "INVALID_ARGUMENT; then twice OK,"
                + " an unknown volume or node OK (the spec: already unpublished)", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerUnpublishVolume(unpublish().clearVolumeId().build()));
            controller.stub().controllerUnpublishVolume(unpublish().build());
            controller.stub().controllerUnpublishVolume(unpublish().build());
            controller.stub().controllerUnpublishVolume(unpublish().setVolumeId(fakeVolumeId()).build());
            controller.stub().controllerUnpublishVolume(unpublish().setNodeId(fakeNodeId()).build());
        });
        controllerSanity("DeleteVolume should fail when no volume id is provided / should succeed when an invalid volume id is used"
                + " / should return appropriate values (no optional values added)", "twice OK; nothing left in the kernel", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().deleteVolume(DeleteVolumeRequest.getDefaultInstance()));
            controller.delete("fake-vol-id");
            controller.delete(fakeVolumeId());
            controller.delete(volume.getVolumeId());
            controller.delete(volume.getVolumeId());
            assertThat(suite.snapshot().changesSince(before)).as("left behind").isEmpty();
        });
        return checks.stream();
    }

    /** A check named after its upstream case, then what pillar-csi asserts beyond it. */
    private void sanity(String upstream, String pillar, Executable body) {
        checks.add(DynamicTest.dynamicTest("sanity: \"" + upstream + "\": " + pillar, body));
    }

    private void controllerSanity(String upstream, String pillar, Executable body) {
        sanity("Controller Service [Controller Server] " + upstream, pillar, body);
    }

    private void expandSanity(String upstream, String pillar, Executable body) {
        sanity("ExpandVolume [Controller Server] " + upstream, pillar, body);
    }

    private CreateVolumeRequest.Builder create() {
        return CreateVolumeRequest.newBuilder().setName(name).setCapacityRange(CapacityRange.newBuilder()
                .setRequiredBytes(320 * MIB)).addVolumeCapabilities(rwo).putAllParameters(parameters);
    }

    private ValidateVolumeCapabilitiesRequest.Builder validate() {
        return ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId(volume.getVolumeId())
                .putAllVolumeContext(volume.getVolumeContextMap()).addVolumeCapabilities(rwo);
    }

    private ControllerPublishVolumeRequest.Builder publish() {
        return ControllerPublishVolumeRequest.newBuilder().setVolumeId(volume.getVolumeId()).setNodeId(node.nodeId())
                .setVolumeCapability(rwo).putAllVolumeContext(volume.getVolumeContextMap());
    }

    private ControllerUnpublishVolumeRequest.Builder unpublish() {
        return ControllerUnpublishVolumeRequest.newBuilder().setVolumeId(volume.getVolumeId()).setNodeId(node.nodeId());
    }

    private ControllerExpandVolumeRequest.Builder expand() {
        return ControllerExpandVolumeRequest.newBuilder().setVolumeId(volume.getVolumeId())
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(448 * MIB)).setVolumeCapability(rwo);
    }
}
