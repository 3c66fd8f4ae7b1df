package pillar.controller.csi.condition;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;


import io.grpc.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.ControllerGetVolumeRequest;
import pillar.api.csi.v1.ControllerGetVolumeResponse;
import pillar.api.csi.v1.ControllerServiceCapability.RPC.Type;
import pillar.api.csi.v1.ListVolumesRequest;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCondition;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;

/**
 * ControllerGetVolume over the real CSI socket with the stateful fake agent: the volume as CreateVolume
 * returned it, the nodes it is published to, and a VolumeCondition that is abnormal, with a message
 * naming the store, the agent and what to do, for each cause the agent reports (export wiped or
 * drifted, LV gone, pool degraded, thin pool over 90 %) and for an agent that cannot be reached, and
 * normal again once the cause is gone. Mirrors csi-sanity's ControllerGetVolume cases ("should fail
 * when no volume id is provided", "should fail when the volume is missing", "should return appropriate
 * values (no optional values added)").
 */
class VolumeConditionIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();
    private Volume created;

    @BeforeEach
    void aVolumePublishedToOneNode() {
        created = harness.csi().createVolume(Requests.create("pvc-1", GIB)).getVolume();
        harness.csi().controllerPublishVolume(Requests.publish("pvc-1", NODE_A, Requests.rwo(), false));
    }

    @Test
    void getVolumeAndVolumeConditionAreReported() {
        assertThat(harness.csi().controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList()).extracting(c -> c.getRpc().getType()).contains(Type.GET_VOLUME, Type.VOLUME_CONDITION);
    }

    @Test
    void listVolumesReportsTheConditionControllerGetVolumeReports() {
        harness.fakeAgent().loseVolume("pvc-1");

        VolumeCondition listed = harness.csi().listVolumes(ListVolumesRequest.getDefaultInstance()).getEntriesList().stream()
                .filter(e -> e.getVolume().getVolumeId().equals("pvc-1")).findFirst().orElseThrow().getStatus().getVolumeCondition();
        assertThat(listed.getAbnormal()).isTrue();
        assertThat(listed).isEqualTo(get().getStatus().getVolumeCondition());
    }

    @Test
    void aHealthyVolumeIsReturnedAsCreatedWithItsNodeAndANormalCondition() {
        ControllerGetVolumeResponse got = get();

        assertThat(got.getVolume()).isEqualTo(created);
        assertThat(got.getStatus().getPublishedNodeIdsList()).containsExactly(NODE_A);
        assertThat(got.getStatus().getVolumeCondition()).isEqualTo(VolumeCondition.newBuilder().setAbnormal(false).build());
    }

    @Test
    void noVolumeIdIsInvalidArgumentAndAnUnknownOrMalformedOneIsNotFound() {
        assertCode(Status.Code.INVALID_ARGUMENT, () -> harness.csi().controllerGetVolume(ControllerGetVolumeRequest.getDefaultInstance()));
        assertCode(Status.Code.NOT_FOUND, () -> get("pvc-nope"));
        assertCode(Status.Code.NOT_FOUND, () -> get("some/../fake id"));
        assertThat(harness.fakeAgents().calls()).noneMatch(c -> c.startsWith("GetVolumeHealth"));
    }

    @Test
    void anExportWipedFromTheKernelThatCannotBeReappliedIsAbnormalUntilItIs() {
        // one the kernel refuses to take back: the poll cannot repair it, so it stays abnormal
        harness.fakeAgent().stuckDrift("pvc-1", "subsystem nqn.2024-06.io.pillar-csi:pvc-1 missing");

        assertAbnormal("volume pvc-1 on PillarStore fast (agent storage-1, backend fast):",
                "subsystem nqn.2024-06.io.pillar-csi:pvc-1 missing", "the controller re-applies it when its next poll",
                "see the log of pillar-agent on storage-1", "restart pillar-agent on storage-1");

        harness.fakeAgent().drift("pvc-1");
        assertThat(get().getStatus().getVolumeCondition().getAbnormal()).isFalse();
    }

    @Test
    void anExportTheAgentNoLongerHoldsIsAbnormal() {
        harness.fakeAgent().loseExport("pvc-1");

        assertAbnormal("agent storage-1 holds no export of it", "AgentStateMissing");
    }

    @Test
    void anLvGoneFromTheBackendIsAbnormal() {
        harness.fakeAgent().loseVolume("pvc-1");

        assertAbnormal("its LV is gone from backend fast", "lvs / zfs list", "delete the PersistentVolumeClaim");
    }

    @Test
    void aDegradedPoolIsAbnormal() {
        harness.fakeAgent().poolHealth("fast", "DEGRADED");

        assertAbnormal("its ZFS pool is DEGRADED", "zpool status -x");

        harness.fakeAgent().poolHealth("fast", "ONLINE");
        assertThat(get().getStatus().getVolumeCondition().getAbnormal()).isFalse();
    }

    @Test
    void aThinPoolAbove90PercentOfItsDataOrMetadataIsAbnormalAndAt90ItIsNot() {
        harness.fakeAgent().thinUsage("fast", "vg0/pool0", 90, 90);
        assertThat(get().getStatus().getVolumeCondition().getAbnormal()).isFalse();

        harness.fakeAgent().thinUsage("fast", "vg0/pool0", 93.25, 12);
        assertAbnormal("thin pool vg0/pool0 is nearly full (data 93.3 % used, above 90.0 %)", "lvextend vg0/pool0");

        harness.fakeAgent().thinUsage("fast", "vg0/pool0", 12, 95);
        assertAbnormal("(metadata 95.0 % used", "lvextend --poolmetadatasize vg0/pool0");
    }

    @Test
    void anAgentThatCannotBeReachedIsAnAbnormalConditionNotAnError() {
        harness.fakeAgent().down();
        assertAbnormal("agent storage-1 cannot be reached (", "UNAVAILABLE", "AgentConnected");

        harness.fakeAgent().up();
        harness.agents.fail("GetVolumeHealth", Fault.AFTER);
        assertAbnormal("agent storage-1 cannot be reached (", "DEADLINE_EXCEEDED");

        assertThat(get().getStatus().getVolumeCondition().getAbnormal()).isFalse();
        assertThat(harness.fakeAgents().calls()).filteredOn(c -> c.startsWith("GetVolumeHealth"))
                .as("one call per ControllerGetVolume, never retried").hasSize(3);
    }

    private void assertAbnormal(String... fragments) {
        VolumeCondition condition = get().getStatus().getVolumeCondition();
        assertThat(condition.getAbnormal()).as(condition.getMessage()).isTrue();
        assertThat(condition.getMessage()).startsWith("volume pvc-1 on PillarStore fast (agent storage-1, backend fast): ")
                .contains(fragments);
    }

    private ControllerGetVolumeResponse get() {
        return get("pvc-1");
    }

    private ControllerGetVolumeResponse get(String id) {
        return harness.csi().controllerGetVolume(ControllerGetVolumeRequest.newBuilder().setVolumeId(id).build());
    }
}
