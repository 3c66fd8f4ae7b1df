package pillar.controller.csi.realagent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;
import static pillar.controller.csi.realagent.RealAgent.MIB;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.grpc.Status;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.FencingToken;
import pillar.api.agent.v1.ListVolumesRequest;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.GetCapacityRequest;
import pillar.controller.agent.AgentTarget;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.volume.publish.StaleGrants;

/**
 * The whole volume lifecycle as the sidecars drive it, over the controller's real CSI socket, with
 * the real agent over real gRPC: what ends up in the fake kernel's configfs and the fake volume
 * group is what a storage node would hold. Then crashes at each agent step, and the retry; and a
 * stale grant revoked.
 */
class RealAgentSequenceIT {
    @TempDir
    Path dir;

    private RealAgentBed bed;

    @BeforeEach
    void start() {
        bed = RealAgentBed.start(dir);
    }

    @AfterEach
    void stop() {
        bed.close();
    }

    @Test
    void createPublishUnpublishExpandDelete() {
        bed.agent.expectVolume("pvc-r1");
        var volume = bed.harness.csi().createVolume(Requests.create("pvc-r1", 64 * MIB)).getVolume();
        assertThat(volume.getCapacityBytes()).isEqualTo(64 * MIB);
        assertThat(volumes()).containsExactly("pvc-r1=" + 64 * MIB);
        String nqn = "nqn.2024-06.io.pillar-csi:pvc-r1";
        assertThat(bed.agent.configfs.entries("subsystems")).containsExactly(nqn);
        assertThat(bed.agent.configfs.value("subsystems/" + nqn + "/namespaces/1/enable")).contains("1");
        assertThat(bed.harness.csi().createVolume(Requests.create("pvc-r1", 64 * MIB)).getVolume()).isEqualTo(volume);
        assertThat(bed.agent.lvcreates("pvc-r1")).isEqualTo(1);

        Map<String, String> context = bed.harness.csi().controllerPublishVolume(Requests.publish("pvc-r1", NODE_A, Requests.rwo(), false))
                .getPublishContextMap();
        assertThat(context).containsEntry(PublishContext.NQN, nqn).containsEntry(PublishContext.TRADDR, "127.0.0.1")
                .containsEntry(PublishContext.TRSVCID, "4420").containsEntry(PublishContext.TRANSPORT, "tcp");
        assertThat(bed.agent.configfs.entries("subsystems/" + nqn + "/allowed_hosts")).containsExactly(NODE_A);
        assertThat(bed.agent.configfs.value("subsystems/" + nqn + "/attr_allow_any_host")).contains("0");

        var grown = bed.harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder().setVolumeId("pvc-r1")
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(102 * MIB)).build());
        assertThat(grown.getCapacityBytes()).isEqualTo(104 * MIB);
        assertThat(grown.getNodeExpansionRequired()).isTrue();
        assertThat(volumes()).containsExactly("pvc-r1=" + 104 * MIB);

        bed.harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-r1", NODE_A));
        assertThat(bed.agent.configfs.entries("subsystems/" + nqn + "/allowed_hosts")).isEmpty();
        assertThat(bed.harness.csi().getCapacity(GetCapacityRequest.newBuilder().putAllParameters(Requests.parameters()).build())
                .getAvailableCapacity()).isPositive();

        bed.harness.csi().deleteVolume(Requests.delete("pvc-r1"));
        bed.harness.csi().deleteVolume(Requests.delete("pvc-r1"));
        assertThat(bed.agent.configfs.entries("subsystems")).isEmpty();
        assertThat(bed.agent.configfs.entries("ports")).isEmpty();
        assertThat(volumes()).isEmpty();
        assertThat(bed.harness.states()).isEmpty();
    }

    /** ListVolumes reads the real agent's GetVolumesHealth: each entry's condition is ControllerGetVolume's (GetVolumeHealth). */
    @Test
    void listVolumesReportsTheConditionsControllerGetVolumeReports() {
        for (String id : List.of("pvc-h1", "pvc-h2", "pvc-h3")) {
            bed.agent.expectVolume(id);
            bed.harness.csi().createVolume(Requests.create(id, 64 * MIB));
        }
        bed.agent.lvm.removeBehindTheAgent("pvc-h2");

        var entries = bed.harness.csi().listVolumes(pillar.api.csi.v1.ListVolumesRequest.getDefaultInstance()).getEntriesList();

        assertThat(entries).extracting(e -> e.getVolume().getVolumeId()).containsExactly("pvc-h1", "pvc-h2", "pvc-h3");
        assertThat(entries).extracting(e -> e.getStatus().getVolumeCondition().getAbnormal()).containsExactly(false, true, false);
        for (var entry : entries) {
            assertThat(entry.getStatus().getVolumeCondition()).isEqualTo(bed.harness.csi().controllerGetVolume(
                    pillar.api.csi.v1.ControllerGetVolumeRequest.newBuilder().setVolumeId(entry.getVolume().getVolumeId()).build())
                    .getStatus().getVolumeCondition());
        }
    }

    /**
     * The agent's 2 GiB thin pool at its default over-provisioning ratio 1, through the controller as the
     * sidecars see it: a create and a growth beyond it are RESOURCE_EXHAUSTED naming the figures, nothing is
     * made, and GetCapacity offers what the ratio leaves.
     */
    @Test
    void beyondTheThinPoolsRatioCreateAndExpandAreResourceExhausted() {
        bed.agent.expectVolume("pvc-o1").expectVolume("pvc-o2");
        bed.harness.csi().createVolume(Requests.create("pvc-o1", 2000 * MIB));

        String message = assertCode(Status.Code.RESOURCE_EXHAUSTED,
                () -> bed.harness.csi().createVolume(Requests.create("pvc-o2", 64 * MIB)));
        assertThat(message).contains("thin pool vg0/pool0 cannot take volume pvc-o2 of 64MiB: its thin volumes already add up to"
                + " 2000MiB of the 2GiB its over-provisioning ratio 1 allows");
        assertThat(bed.agent.lvcreates("pvc-o2")).isZero();
        assertCode(Status.Code.RESOURCE_EXHAUSTED, () -> bed.harness.csi().controllerExpandVolume(ControllerExpandVolumeRequest.newBuilder()
                .setVolumeId("pvc-o1").setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(2100 * MIB)).build()));
        assertThat(volumes()).containsExactly("pvc-o1=" + 2000 * MIB);
        assertThat(bed.harness.csi().getCapacity(GetCapacityRequest.newBuilder().putAllParameters(Requests.parameters()).build())
                .getAvailableCapacity()).isEqualTo(48 * MIB);
    }

    /**
     * The stale-grant revocation (a host the agent admits that the state does not publish to): seen
     * from the fake kernel's configfs, that host loses its allowed_hosts link (and its open
     * connections, as on ControllerUnpublishVolume), the published one keeps its link, and the
     * subsystem and its namespace are left as they were (never re-exported).
     */
    @Test
    void aHostNotPublishedLosesItsLinkInConfigfsAndNothingElseChanges() {
        bed.agent.expectVolume("pvc-s1");
        bed.harness.csi().createVolume(Requests.create("pvc-s1", 64 * MIB));
        bed.harness.csi().controllerPublishVolume(Requests.publish("pvc-s1", NODE_A, Requests.rwo(), false));
        String nqn = "nqn.2024-06.io.pillar-csi:pvc-s1";
        String allowed = "subsystems/" + nqn + "/allowed_hosts";
        PillarVolumeState state = bed.harness.state("pvc-s1").orElseThrow();
        bed.agent.client.allowInitiator(AgentTarget.plaintext("127.0.0.1", bed.agent.port()), AllowInitiatorRequest.newBuilder()
                .setToken(FencingToken.newBuilder().setLifecycleUid(state.getMetadata().getUid())
                        .setPublicationGeneration(state.getStatus().getPublicationGeneration()))
                .setVolumeId("pvc-s1").setHostNqn(NODE_B).build());
        assertThat(bed.agent.configfs.entries(allowed)).containsExactlyInAnyOrder(NODE_A, NODE_B);
        int before = bed.agent.configfs.changes().size();

        await().atMost(ControllerHarness.PATIENCE).until(() -> bed.agent.configfs.entries(allowed), hosts -> hosts.equals(List.of(NODE_A)));
        List<String> made = bed.agent.configfs.changes().subList(before, bed.agent.configfs.changes().size());
        // what DenyInitiator makes: node B's link and host entry go, and the subsystem is re-linked on its
        // port so that an open connection of B's is cut too; node A's link, the namespace stay
        assertThat(made).contains("unlink " + allowed + "/" + NODE_B)
                .noneMatch(change -> change.contains(NODE_A) || change.contains("namespaces") || change.startsWith("rmdir subsystems"));
        assertThat(bed.agent.configfs.value("subsystems/" + nqn + "/namespaces/1/enable")).contains("1");
        assertThat(bed.agent.configfs.entries("ports")).hasSize(1);
        await().atMost(ControllerHarness.PATIENCE).until(() -> bed.harness.events("pvc-s1").stream()
                .anyMatch(e -> e.getReason().equals(StaleGrants.REVOKED) && e.getMessage().contains(NODE_B)));
    }

    @Test
    void aCrashAtEachAgentStepIsRecoveredByTheRetryWithNothingDuplicatedOrLeftBehind() {
        String nqn = "nqn.2024-06.io.pillar-csi:pvc-r2";
        bed.agent.expectVolume("pvc-r2");
        for (String rpc : new String[] {"CreateVolume", "ExportVolume"}) {
            for (Fault fault : Fault.values()) {
                bed.harness.agents.fail(rpc, fault);
                assertCode(fault == Fault.BEFORE ? Status.Code.UNAVAILABLE : Status.Code.DEADLINE_EXCEEDED,
                        () -> bed.harness.csi().createVolume(Requests.create("pvc-r2", 64 * MIB)));
                bed.harness.restart();
            }
        }
        bed.harness.csi().createVolume(Requests.create("pvc-r2", 64 * MIB));
        assertThat(bed.agent.lvcreates("pvc-r2")).isEqualTo(1);
        assertThat(volumes()).containsExactly("pvc-r2=" + 64 * MIB);
        assertThat(bed.agent.configfs.entries("subsystems")).containsExactly(nqn);

        for (Fault fault : Fault.values()) {
            bed.harness.agents.fail("DeleteVolume", fault);
            assertCode(fault == Fault.BEFORE ? Status.Code.UNAVAILABLE : Status.Code.DEADLINE_EXCEEDED,
                    () -> bed.harness.csi().deleteVolume(Requests.delete("pvc-r2")));
            bed.harness.restart();
        }
        bed.harness.csi().deleteVolume(Requests.delete("pvc-r2"));
        assertThat(volumes()).isEmpty();
        assertThat(bed.agent.configfs.entries("subsystems")).isEmpty();
        assertThat(bed.harness.states()).isEmpty();
    }

    private java.util.List<String> volumes() {
        return bed.agent.client.listVolumes(AgentTarget.plaintext("127.0.0.1", bed.agent.port()),
                ListVolumesRequest.newBuilder().setBackend("fast").build()).getVolumesList().stream()
                .map(v -> v.getVolumeId() + "=" + v.getSizeBytes()).toList();
    }
}
