package pillar.controller.csi.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;

import java.util.List;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.VolumePhase;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;

/**
 * The controller crashes at every step of CreateVolume and DeleteVolume (a fault between two steps,
 * then a fresh controller process), and the CO's retry converges: one volume, one export, the state
 * Exported; after delete nothing on the agent and no state. An agent step that failed before acting
 * is a crash before it; one whose answer was lost is a crash right after it.
 */
class CrashRecoveryIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void aCrashRightAfterTheStateIsWrittenResumesFromPending() {
        harness.csi().createVolume(Requests.create("pvc-model", GIB));
        PillarVolumeState model = harness.state("pvc-model").orElseThrow();
        // what a crash between the state's creation and its first step leaves: a state without status
        PillarVolumeState pending = new PillarVolumeState();
        pending.setMetadata(new ObjectMetaBuilder().withName("pvc-c0").build());
        pending.setSpec(model.getSpec());
        pending.getSpec().setVolumeName("pvc-c0");
        harness.client().resource(pending).create();
        harness.restart();

        harness.csi().createVolume(Requests.create("pvc-c0", GIB));
        assertConverged("pvc-c0");
    }

    @Test
    void aCrashBeforeOrAfterEachAgentStepOfCreateIsRecoveredByTheRetry() {
        int n = 0;
        for (String rpc : List.of("CreateVolume", "ExportVolume")) {
            for (Fault fault : Fault.values()) {
                String name = "pvc-c" + ++n;
                harness.agents.fail(rpc, fault);
                assertCode(fault == Fault.BEFORE ? Status.Code.UNAVAILABLE : Status.Code.DEADLINE_EXCEEDED,
                        () -> harness.csi().createVolume(Requests.create(name, GIB)));
                VolumePhase crashed = harness.state(name).orElseThrow().getStatus().getPhase();
                assertThat(crashed).as(rpc + " " + fault).isEqualTo(rpc.equals("CreateVolume") ? VolumePhase.Creating : VolumePhase.Exporting);
                harness.restart();
                harness.csi().createVolume(Requests.create(name, GIB));
                assertConverged(name);
            }
        }
        assertThat(harness.fakeAgent().volumes()).hasSize(4);
        assertThat(harness.fakeAgent().exports()).hasSize(4);
    }

    @Test
    void aCrashBeforeOrAfterTheAgentsDeleteIsRecoveredByTheRetryAndLeavesNothing() {
        for (Fault fault : Fault.values()) {
            String name = "pvc-d-" + fault.name().toLowerCase();
            harness.csi().createVolume(Requests.create(name, GIB));
            String lifecycle = harness.state(name).orElseThrow().getMetadata().getUid();
            harness.agents.fail("DeleteVolume", fault);
            assertCode(fault == Fault.BEFORE ? Status.Code.UNAVAILABLE : Status.Code.DEADLINE_EXCEEDED,
                    () -> harness.csi().deleteVolume(Requests.delete(name)));
            assertThat(harness.state(name).orElseThrow().getStatus().getPhase()).isEqualTo(VolumePhase.Deleting);
            // a Deleting volume is never published nor created again under its old lifecycle
            assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().controllerPublishVolume(
                    Requests.publish(name, NODE_A, Requests.rwo(), false)));
            assertCode(Status.Code.ABORTED, () -> harness.csi().createVolume(Requests.create(name, GIB)));
            harness.restart();
            harness.csi().deleteVolume(Requests.delete(name));
            assertThat(harness.state(name)).isEmpty();
            assertThat(harness.fakeAgent().volumes()).doesNotContainKey(name);
            assertThat(harness.fakeAgent().exports()).doesNotContainKey(name);
            assertThat(harness.fakeAgent().mark(name).orElseThrow().ended()).isTrue();
            assertThat(harness.fakeAgent().mark(name).orElseThrow().lifecycle().value()).isEqualTo(lifecycle);
        }
    }

    @Test
    void aCrashAroundTheGrantOrItsWithdrawalLeavesNoHostAllowedThatTheRecordDoesNotHold() {
        harness.csi().createVolume(Requests.create("pvc-p", GIB));
        harness.agents.fail("AllowInitiator", Fault.AFTER);
        assertCode(Status.Code.DEADLINE_EXCEEDED, () -> harness.csi().controllerPublishVolume(
                Requests.publish("pvc-p", NODE_A, Requests.rwo(), false)));
        harness.restart();
        harness.csi().controllerPublishVolume(Requests.publish("pvc-p", NODE_A, Requests.rwo(), false));
        assertThat(harness.fakeAgent().allowedHosts("pvc-p")).containsExactly(NODE_A);

        // the record loses the publication, then the crash: the host is still allowed until the retry
        harness.agents.fail("DenyInitiator", Fault.BEFORE);
        assertCode(Status.Code.UNAVAILABLE, () -> harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-p", NODE_A)));
        assertThat(harness.state("pvc-p").orElseThrow().getStatus().getPublications()).isEmpty();
        assertThat(harness.fakeAgent().allowedHosts("pvc-p")).containsExactly(NODE_A);
        harness.restart();
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-p", NODE_A));
        assertThat(harness.fakeAgent().allowedHosts("pvc-p")).isEmpty();
    }

    @Test
    void anAgentThatRefusesToCreateLeavesNoStateAndTheNextCreateStartsAfresh() {
        String message = assertCode(Status.Code.RESOURCE_EXHAUSTED, () -> harness.csi().createVolume(Requests.create("pvc-big", 200 * GIB)));
        assertThat(message).contains("RESOURCE_EXHAUSTED");
        assertThat(harness.state("pvc-big")).isEmpty();
        assertThat(harness.fakeAgent().volumes()).isEmpty();
        assertThat(harness.fakeAgent().mark("pvc-big").orElseThrow().ended()).isTrue();
        harness.csi().createVolume(Requests.create("pvc-big", GIB));
        assertConverged("pvc-big");
    }

    private void assertConverged(String volumeId) {
        PillarVolumeState state = harness.state(volumeId).orElseThrow();
        assertThat(state.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(harness.fakeAgent().volumes()).containsKey(volumeId);
        assertThat(harness.fakeAgent().volumes().get(volumeId).size()).isEqualTo(GIB);
        assertThat(harness.fakeAgent().exports()).containsKey(volumeId);
        assertThat(harness.fakeAgent().mark(volumeId).orElseThrow().lifecycle().value()).isEqualTo(state.getMetadata().getUid());
        assertThat(harness.fakeAgent().mark(volumeId).orElseThrow().generation())
                .isEqualTo(state.getStatus().getPublicationGeneration());
        assertThat(harness.states().stream().filter(s -> s.getSpec().getVolumeName().equals(volumeId))).hasSize(1);
    }
}
