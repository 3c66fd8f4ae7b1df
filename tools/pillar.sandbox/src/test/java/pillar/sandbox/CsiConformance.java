package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.sandbox.Volumes.MIB;
import static pillar.sandbox.Volumes.assertCode;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

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
import pillar.api.server.Driver;

/**
 * What the kubernetes-csi sanity suite checks, in Java, against the running sockets: the
 * capabilities, the error code of every call for each missing argument, not-found and capability
 * mismatches, and the whole sequence create, publish, stage, publish, unpublish, unstage, unpublish,
 * delete with every call made twice (idempotency). The node's and the identity's checks are in
 * {@link NodeConformance}.
 * One known, deliberate difference: sanity publishes to the node ID "some-fake-node-id" and expects
 * NOT_FOUND; pillar's node IDs are host NQNs, which the controller cannot look up, so it refuses a
 * malformed one with INVALID_ARGUMENT.
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

    Stream<DynamicTest> checks() {
        check("Identity on the controller's socket: its name and version, ready, the controller service, online expansion", () -> {
            IdentityGrpc.IdentityBlockingStub identity = IdentityGrpc.newBlockingStub(controller.channel());
            GetPluginInfoResponse info = identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance());
            assertThat(info.getName()).isEqualTo(Driver.NAME);
            assertThat(info.getVendorVersion()).isNotEmpty();
            assertThat(identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue()).isTrue();
            List<PluginCapability> capabilities = identity.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
                    .getCapabilitiesList();
            assertThat(capabilities).anySatisfy(c -> assertThat(c.getService().getType())
                    .isEqualTo(PluginCapability.Service.Type.CONTROLLER_SERVICE));
            assertThat(capabilities).anySatisfy(c -> assertThat(c.getVolumeExpansion().getType())
                    .isEqualTo(PluginCapability.VolumeExpansion.Type.ONLINE));
        });
        check("ControllerGetCapabilities: create/delete, publish/unpublish, expand, capacity", () ->
                assertThat(controller.stub().controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                        .getCapabilitiesList()).extracting(c -> c.getRpc().getType()).contains(
                        ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME,
                        ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME,
                        ControllerServiceCapability.RPC.Type.EXPAND_VOLUME, ControllerServiceCapability.RPC.Type.GET_CAPACITY));
        check("GetCapacity of the StorageClass's parameters: more than 0 bytes", () ->
                assertThat(controller.stub().getCapacity(GetCapacityRequest.newBuilder().putAllParameters(parameters)
                        .addVolumeCapabilities(rwo).build()).getAvailableCapacity()).isPositive());
        check("CreateVolume without a name, without capabilities, with ReadWriteMany: INVALID_ARGUMENT", () -> {
            before = suite.snapshot();
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().createVolume(create().clearName().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().createVolume(create().clearVolumeCapabilities().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().createVolume(create().clearVolumeCapabilities()
                    .addVolumeCapabilities(Capabilities.of(VolumeMode.EXT4, "ext4", Mode.MULTI_NODE_MULTI_WRITER)).build()));
        });
        check("CreateVolume twice with the same name and parameters: one volume", () -> {
            volume = controller.stub().createVolume(create().build()).getVolume();
            assertThat(controller.stub().createVolume(create().build()).getVolume()).isEqualTo(volume);
        });
        check("CreateVolume with the same name and another size: ALREADY_EXISTS", () -> assertCode(Code.ALREADY_EXISTS,
                () -> controller.stub().createVolume(create().setCapacityRange(CapacityRange.newBuilder()
                        .setRequiredBytes(400 * MIB)).build())));
        check("ValidateVolumeCapabilities: arguments required, NOT_FOUND, its capability confirmed, ReadWriteMany not", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().validateVolumeCapabilities(validate().clearVolumeId().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().validateVolumeCapabilities(
                    validate().clearVolumeCapabilities().build()));
            assertCode(Code.NOT_FOUND, () -> controller.stub().validateVolumeCapabilities(validate().setVolumeId(unknown()).build()));
            assertThat(controller.stub().validateVolumeCapabilities(validate().build()).getConfirmed().getVolumeCapabilitiesList())
                    .containsExactly(rwo);
            assertThat(controller.stub().validateVolumeCapabilities(validate().clearVolumeCapabilities().addVolumeCapabilities(
                    Capabilities.of(VolumeMode.EXT4, "ext4", Mode.MULTI_NODE_MULTI_WRITER)).build()).hasConfirmed()).isFalse();
        });
        check("ControllerPublishVolume: arguments required, NOT_FOUND, a malformed node ID, a capability that does not fit", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(publish().clearVolumeId().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(publish().clearNodeId().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(publish().clearVolumeCapability().build()));
            assertCode(Code.NOT_FOUND, () -> controller.stub().controllerPublishVolume(publish().setVolumeId(unknown()).build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(publish()
                    .setNodeId("some-fake-node-id").build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerPublishVolume(publish().setVolumeCapability(
                    Capabilities.of(VolumeMode.BLOCK, "", Mode.SINGLE_NODE_WRITER)).build()));
        });
        check("ControllerPublishVolume twice: the same publish context", () -> {
            publishContext = controller.stub().controllerPublishVolume(publish().build()).getPublishContextMap();
            assertThat(controller.stub().controllerPublishVolume(publish().build()).getPublishContextMap()).isEqualTo(publishContext);
        });
        check("ControllerPublishVolume: another node while ReadWriteOnce holds it FAILED_PRECONDITION,"
                + " the same node read-only ALREADY_EXISTS", () -> {
            assertCode(Code.FAILED_PRECONDITION, () -> controller.stub().controllerPublishVolume(publish()
                    .setNodeId(other.nodeId()).build()));
            assertCode(Code.ALREADY_EXISTS, () -> controller.stub().controllerPublishVolume(publish().setReadonly(true).build()));
        });
        NodeConformance nodeChecks = new NodeConformance(node, suite.bed.layout().hostNqnFile(), () -> volume,
                () -> publishContext, rwo);
        nodeChecks.stageAndPublish().forEach(this::check);
        check("ControllerExpandVolume: arguments required, NOT_FOUND, twice to one size OK", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerExpandVolume(expand().clearVolumeId().build()));
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerExpandVolume(expand().clearCapacityRange().build()));
            assertCode(Code.NOT_FOUND, () -> controller.stub().controllerExpandVolume(expand().setVolumeId(unknown()).build()));
            assertThat(controller.stub().controllerExpandVolume(expand().build()).getCapacityBytes()).isGreaterThanOrEqualTo(448 * MIB);
            assertThat(controller.stub().controllerExpandVolume(expand().build()).getCapacityBytes()).isGreaterThanOrEqualTo(448 * MIB);
        });
        nodeChecks.expandAndUndo().forEach(this::check);
        check("ControllerUnpublishVolume: volume ID required, twice OK, an unknown volume OK", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().controllerUnpublishVolume(unpublish().clearVolumeId().build()));
            controller.stub().controllerUnpublishVolume(unpublish().build());
            controller.stub().controllerUnpublishVolume(unpublish().build());
            controller.stub().controllerUnpublishVolume(unpublish().setVolumeId(unknown()).build());
        });
        check("DeleteVolume: volume ID required, twice OK, an unknown volume OK; nothing left in the kernel", () -> {
            assertCode(Code.INVALID_ARGUMENT, () -> controller.stub().deleteVolume(DeleteVolumeRequest.getDefaultInstance()));
            controller.delete(volume.getVolumeId());
            controller.delete(volume.getVolumeId());
            controller.delete(unknown());
            assertThat(suite.snapshot().changesSince(before)).as("left behind").isEmpty();
        });
        return checks.stream();
    }

    private void check(String name, Executable body) {
        checks.add(DynamicTest.dynamicTest(name, body));
    }

    private void check(DynamicTest test) {
        checks.add(test);
    }

    private static String unknown() {
        return "pvc-" + UUID.randomUUID();
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
