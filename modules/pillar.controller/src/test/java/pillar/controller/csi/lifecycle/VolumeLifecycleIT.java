package pillar.controller.csi.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;

import java.util.Map;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.context.PublishContext;
import pillar.api.context.VolumeContext;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.ControllerServiceCapability;
import pillar.api.csi.v1.GetCapacityRequest;
import pillar.api.csi.v1.Topology;
import pillar.api.csi.v1.TopologyRequirement;
import pillar.api.csi.v1.ValidateVolumeCapabilitiesRequest;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.Publication;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.crd.VolumePhase;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;

/**
 * Every Controller call over the real CSI socket, with the stateful fake agent: what the state
 * records, what the agent holds, and the CSI codes of the spec for repeats and conflicts.
 */
class VolumeLifecycleIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void createRecordsTheFrozenSettingsDrivesTheAgentAndIsIdempotent() {
        Volume volume = harness.csi().createVolume(Requests.create("pvc-1", 3 * GIB + 1)).getVolume();
        assertThat(volume.getVolumeId()).isEqualTo("pvc-1");
        assertThat(volume.getCapacityBytes()).isEqualTo(3 * GIB + 4 * 1024 * 1024);
        assertThat(volume.getVolumeContextMap()).containsEntry(VolumeContext.BACKEND, "lvm-thin");

        PillarVolumeState state = harness.state("pvc-1").orElseThrow();
        assertThat(state.getSpec().getVolumeName()).isEqualTo("pvc-1");
        assertThat(state.getSpec().getBackend()).isEqualTo("fast");
        assertThat(state.getSpec().getAgent()).isEqualTo(CsiHarness.AGENT);
        assertThat(state.getSpec().getFsType()).isEqualTo("ext4");
        assertThat(state.getSpec().getExport().toString())
                .isEqualTo("bindAddress=192.0.2.10,port=4420,aclEnabled=true,traddr=192.0.2.10");
        assertThat(state.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(state.getStatus().getPublicationGeneration()).isEqualTo(2);
        assertThat(harness.fakeAgent().volumes()).containsOnlyKeys("pvc-1");
        assertThat(harness.fakeAgent().exports()).containsOnlyKeys("pvc-1");
        assertThat(harness.fakeAgent().mark("pvc-1").orElseThrow().lifecycle().value()).isEqualTo(state.getMetadata().getUid());

        assertThat(harness.csi().createVolume(Requests.create("pvc-1", 3 * GIB + 1)).getVolume()).isEqualTo(volume);
        assertThat(harness.states()).hasSize(1);
        assertThat(harness.fakeAgent().volumes()).hasSize(1);

        assertCode(Status.Code.ALREADY_EXISTS, () -> harness.csi().createVolume(Requests.create("pvc-1", 5 * GIB)));
        assertCode(Status.Code.ALREADY_EXISTS, () -> harness.csi().createVolume(Requests.create("pvc-1", GIB,
                Requests.rwo(), Requests.parameters(StorageClassParameters.PREFIX + "mkfsOptions", "-m 0"))));
        assertCode(Status.Code.ALREADY_EXISTS, () -> harness.csi().createVolume(Requests.create("pvc-1", GIB,
                Requests.block(Mode.SINGLE_NODE_WRITER), Requests.parameters())));
    }

    @Test
    void publishRecordsThePublicationAllowsTheHostAndAnswersWhatTheNodeNeeds() {
        harness.csi().createVolume(Requests.create("pvc-2", GIB));
        Map<String, String> context = harness.csi().controllerPublishVolume(Requests.publish("pvc-2", NODE_A, Requests.rwo(), false))
                .getPublishContextMap();
        assertThat(context).containsEntry(PublishContext.NQN, "nqn.2024-06.io.pillar-csi:pvc-2")
                .containsEntry(PublishContext.TRANSPORT, "tcp").containsEntry(PublishContext.TRADDR, CsiHarness.FAKE_HOST)
                .containsEntry(PublishContext.TRSVCID, "4420");
        assertThat(harness.fakeAgent().allowedHosts("pvc-2")).containsExactly(NODE_A);
        PillarVolumeState state = harness.state("pvc-2").orElseThrow();
        assertThat(state.getStatus().getPublications()).containsExactly(new Publication(NODE_A, false, "SINGLE_NODE_WRITER"));
        long generation = state.getStatus().getPublicationGeneration();
        assertThat(harness.fakeAgent().mark("pvc-2").orElseThrow().generation()).isEqualTo(generation);

        // the same publication again: the same answer; another one for the same node: ALREADY_EXISTS
        assertThat(harness.csi().controllerPublishVolume(Requests.publish("pvc-2", NODE_A, Requests.rwo(), false))
                .getPublishContextMap()).isEqualTo(context);
        assertCode(Status.Code.ALREADY_EXISTS, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-2", NODE_A, Requests.rwo(), true)));
        // a second node for a RWO volume: FAILED_PRECONDITION until unpublished
        String why = assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-2", NODE_B, Requests.rwo(), false)));
        assertThat(why).contains(NODE_A);
        assertThat(harness.fakeAgent().allowedHosts("pvc-2")).containsExactly(NODE_A);

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-2", NODE_A));
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-2", NODE_A));
        assertThat(harness.fakeAgent().allowedHosts("pvc-2")).isEmpty();
        assertThat(harness.state("pvc-2").orElseThrow().getStatus().getPublications()).isEmpty();
        harness.csi().controllerPublishVolume(Requests.publish("pvc-2", NODE_B, Requests.rwo(), false));
        assertThat(harness.fakeAgent().allowedHosts("pvc-2")).containsExactly(NODE_B);

        // unknown volume, unknown node, a node ID of another driver version: already unpublished
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-none", NODE_A));
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-2", NODE_A));
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-2", "worker-1"));
        assertThat(harness.fakeAgent().allowedHosts("pvc-2")).containsExactly(NODE_B);
        assertCode(Status.Code.NOT_FOUND, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-none", NODE_A, Requests.rwo(), false)));
    }

    @Test
    void readOnlyManyGoesToManyNodesButNeverBesideAWriter() {
        var rox = Requests.mount(Mode.MULTI_NODE_READER_ONLY, "xfs");
        harness.csi().createVolume(Requests.create("pvc-3", GIB, rox, Requests.parameters()));
        harness.csi().controllerPublishVolume(Requests.publish("pvc-3", NODE_A, rox, true));
        harness.csi().controllerPublishVolume(Requests.publish("pvc-3", NODE_B, rox, true));
        assertThat(harness.fakeAgent().allowedHosts("pvc-3")).containsExactlyInAnyOrder(NODE_A, NODE_B);
        String third = "nqn.2014-08.org.nvmexpress:uuid:cccccccc-0000-4000-8000-000000000003";
        assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-3", third, Requests.mount(Mode.SINGLE_NODE_WRITER, "xfs"), false)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-3", third, Requests.mount(Mode.MULTI_NODE_MULTI_WRITER, "xfs"), false)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-3", third, Requests.block(Mode.MULTI_NODE_READER_ONLY), true)));
        // unpublish without a node: every node
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-3", ""));
        assertThat(harness.fakeAgent().allowedHosts("pvc-3")).isEmpty();
    }

    @Test
    void expandGrowsThroughTheAgentAndSaysWhetherTheNodeMustGrowTheFilesystem() {
        harness.csi().createVolume(Requests.create("pvc-4", GIB));
        harness.csi().createVolume(Requests.create("pvc-5", GIB, Requests.block(Mode.SINGLE_NODE_WRITER), Requests.parameters()));
        var grown = harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder().setVolumeId("pvc-4")
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(2 * GIB)).build());
        assertThat(grown.getCapacityBytes()).isEqualTo(2 * GIB);
        assertThat(grown.getNodeExpansionRequired()).isTrue();
        assertThat(harness.fakeAgent().volumes().get("pvc-4").size()).isEqualTo(2 * GIB);
        assertThat(harness.state("pvc-4").orElseThrow().getStatus().getCapacityBytes()).isEqualTo(2 * GIB);
        // asking for less than it has: nothing to do
        assertThat(harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder().setVolumeId("pvc-4")
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build()).getCapacityBytes()).isEqualTo(2 * GIB);
        var block = harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder().setVolumeId("pvc-5")
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(3 * GIB)).build());
        assertThat(block.getNodeExpansionRequired()).isFalse();
        assertCode(Status.Code.OUT_OF_RANGE, () -> harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder()
                .setVolumeId("pvc-4").setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(5 * GIB).setLimitBytes(4 * GIB))
                .build()));
        assertCode(Status.Code.NOT_FOUND, () -> harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder()
                .setVolumeId("pvc-none").setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GIB)).build()));
    }

    @Test
    void deleteIsRefusedWhilePublishedEndsTheLifecycleAndIsIdempotent() {
        harness.csi().createVolume(Requests.create("pvc-6", GIB));
        String uid = harness.state("pvc-6").orElseThrow().getMetadata().getUid();
        harness.csi().controllerPublishVolume(Requests.publish("pvc-6", NODE_A, Requests.rwo(), false));
        assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().deleteVolume(Requests.delete("pvc-6")));
        assertThat(harness.fakeAgent().volumes()).containsKey("pvc-6");

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-6", NODE_A));
        harness.csi().deleteVolume(Requests.delete("pvc-6"));
        harness.csi().deleteVolume(Requests.delete("pvc-6"));
        assertThat(harness.state("pvc-6")).isEmpty();
        assertThat(harness.fakeAgent().volumes()).isEmpty();
        assertThat(harness.fakeAgent().exports()).isEmpty();
        assertThat(harness.fakeAgent().mark("pvc-6").orElseThrow().ended()).isTrue();
        assertThat(harness.fakeAgent().mark("pvc-6").orElseThrow().lifecycle().value()).isEqualTo(uid);

        // the same name again is a new lifecycle, which the agent accepts after the old one ended
        harness.csi().createVolume(Requests.create("pvc-6", GIB));
        String second = harness.state("pvc-6").orElseThrow().getMetadata().getUid();
        assertThat(second).isNotEqualTo(uid);
        assertThat(harness.fakeAgent().mark("pvc-6").orElseThrow().lifecycle().value()).isEqualTo(second);
    }

    @Test
    void capabilitiesValidationAndCapacity() {
        assertThat(harness.csi().controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList()).extracting(c -> c.getRpc().getType()).containsExactlyInAnyOrder(
                ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME, ControllerServiceCapability.RPC.Type.PUBLISH_UNPUBLISH_VOLUME,
                ControllerServiceCapability.RPC.Type.EXPAND_VOLUME, ControllerServiceCapability.RPC.Type.GET_CAPACITY,
                ControllerServiceCapability.RPC.Type.PUBLISH_READONLY, ControllerServiceCapability.RPC.Type.SINGLE_NODE_MULTI_WRITER,
                ControllerServiceCapability.RPC.Type.GET_VOLUME, ControllerServiceCapability.RPC.Type.VOLUME_CONDITION,
                ControllerServiceCapability.RPC.Type.LIST_VOLUMES, ControllerServiceCapability.RPC.Type.LIST_VOLUMES_PUBLISHED_NODES,
                ControllerServiceCapability.RPC.Type.CREATE_DELETE_SNAPSHOT, ControllerServiceCapability.RPC.Type.LIST_SNAPSHOTS,
                ControllerServiceCapability.RPC.Type.CLONE_VOLUME);

        harness.csi().createVolume(Requests.create("pvc-7", GIB));
        assertThat(harness.csi().validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("pvc-7")
                .addVolumeCapabilities(Requests.rwo()).build()).getConfirmed().getVolumeCapabilitiesList())
                .containsExactly(Requests.rwo());
        var refused = harness.csi().validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("pvc-7")
                .addVolumeCapabilities(Requests.mount(Mode.MULTI_NODE_MULTI_WRITER, "ext4")).build());
        assertThat(refused.hasConfirmed()).isFalse();
        assertThat(refused.getMessage()).contains("MULTI_NODE_MULTI_WRITER");
        assertThat(harness.csi().validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("pvc-7")
                .addVolumeCapabilities(Requests.block(Mode.SINGLE_NODE_WRITER)).build()).hasConfirmed()).isFalse();
        assertCode(Status.Code.NOT_FOUND, () -> harness.csi().validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest
                .newBuilder().setVolumeId("pvc-none").addVolumeCapabilities(Requests.rwo()).build()));

        long free = harness.csi().getCapacity(GetCapacityRequest.newBuilder().putAllParameters(Requests.parameters())
                .addVolumeCapabilities(Requests.rwo()).build()).getAvailableCapacity();
        assertThat(free).isEqualTo(99 * GIB);
        assertThat(harness.csi().getCapacity(GetCapacityRequest.newBuilder()
                .putParameters(StorageClassParameters.STORE, "no-such-store").build()).getAvailableCapacity()).isZero();
        assertThat(harness.csi().getCapacity(GetCapacityRequest.newBuilder().putAllParameters(Requests.parameters())
                .addVolumeCapabilities(Requests.mount(Mode.MULTI_NODE_MULTI_WRITER, "")).build()).getAvailableCapacity()).isZero();
        assertThat(harness.csi().getCapacity(GetCapacityRequest.getDefaultInstance()).getAvailableCapacity()).isEqualTo(99 * GIB);
    }

    /**
     * pillar-csi's one topology segment: what external-provisioner's capacity tracking keys
     * CSIStorageCapacity on, and what a volume's PersistentVolume requires of a node.
     */
    @Test
    void topologyIsTheOneFabricSegment() {
        Topology ours = Topology.newBuilder().putSegments("topology.pillar.csi.io/fabric", "nvme-tcp").build();
        Topology other = Topology.newBuilder().putSegments("topology.kubernetes.io/zone", "a").build();
        Volume volume = harness.csi().createVolume(Requests.create("pvc-t1", GIB).toBuilder()
                .setAccessibilityRequirements(TopologyRequirement.newBuilder().addRequisite(other).addRequisite(ours)
                        .addPreferred(ours)).build()).getVolume();
        assertThat(volume.getAccessibleTopologyList()).containsExactly(ours);
        assertThat(harness.csi().createVolume(Requests.create("pvc-t1", GIB)).getVolume().getAccessibleTopologyList())
                .as("the repeat answers the same volume").containsExactly(ours);

        assertCode(Status.Code.RESOURCE_EXHAUSTED, () -> harness.csi().createVolume(Requests.create("pvc-t2", GIB).toBuilder()
                .setAccessibilityRequirements(TopologyRequirement.newBuilder().addRequisite(other)).build()));
        assertThat(harness.state("pvc-t2")).as("a refused topology creates nothing").isEmpty();

        GetCapacityRequest capacity = GetCapacityRequest.newBuilder().putAllParameters(Requests.parameters())
                .addVolumeCapabilities(Requests.rwo()).build();
        assertThat(harness.csi().getCapacity(capacity.toBuilder().setAccessibleTopology(ours).build())
                .getAvailableCapacity()).isEqualTo(harness.csi().getCapacity(capacity).getAvailableCapacity()).isPositive();
        assertThat(harness.csi().getCapacity(capacity.toBuilder().setAccessibleTopology(other).build())
                .getAvailableCapacity()).as("a segment without pillar-node nodes").isZero();
    }
}
