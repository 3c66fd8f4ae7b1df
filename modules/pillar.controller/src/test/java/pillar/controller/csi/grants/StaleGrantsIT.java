package pillar.controller.csi.grants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;

import java.util.List;

import io.fabric8.kubernetes.api.model.Event;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.FencingToken;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.volume.publish.StaleGrants;

/**
 * A host the agent still admits to a volume that is no longer published to it (its DenyInitiator
 * never arrived) is revoked by the controller within a poll, with a Warning event on the volume's
 * state; the hosts still published keep their grants, and a volume's export is never widened.
 */
class StaleGrantsIT {
    private static final AgentTarget AGENT = AgentTarget.plaintext(CsiHarness.FAKE_HOST, 9500);

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void aGrantWhoseUnpublishNeverReachedTheAgentIsRevokedAndThePublishedOnesStay() {
        harness.csi().createVolume(Requests.create("pvc-g1", GIB));
        harness.csi().createVolume(Requests.create("pvc-g2", GIB));
        harness.csi().controllerPublishVolume(Requests.publish("pvc-g1", NODE_A, Requests.rwo(), false));
        harness.csi().controllerPublishVolume(Requests.publish("pvc-g2", NODE_B, Requests.rwo(), false));

        // the agent is unreachable when the CO unpublishes pvc-g1 from node A; the CO then gives up
        // (the node was deleted): the publication is gone from the record, the grant is still there
        harness.fakeAgent().down();
        assertThatThrownBy(() -> harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-g1", NODE_A)))
                .isInstanceOf(StatusRuntimeException.class);
        assertThat(harness.state("pvc-g1").orElseThrow().getStatus().getPublications()).isEmpty();
        assertThat(harness.fakeAgent().allowedHosts("pvc-g1")).containsExactly(NODE_A);
        harness.fakeAgent().up();

        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.fakeAgent().allowedHosts("pvc-g1").isEmpty());
        Event revoked = awaitRevokedEvent("pvc-g1");
        assertThat(revoked.getType()).isEqualTo("Warning");
        assertThat(revoked.getMessage()).contains(NODE_A).contains("pvc-g1").contains("revoked");

        // many polls later: the published grant of pvc-g2 is untouched, pvc-g1 is still exported
        long polls = listings();
        await().atMost(ControllerHarness.PATIENCE).until(() -> listings() >= polls + 3);
        assertThat(harness.fakeAgent().allowedHosts("pvc-g2")).containsExactly(NODE_B);
        assertThat(harness.fakeAgent().exports()).containsKeys("pvc-g1", "pvc-g2");
        assertThat(harness.events("pvc-g2")).noneMatch(e -> e.getReason().equals(StaleGrants.REVOKED));
    }

    @Test
    void aHostAdmittedBehindTheControllersBackIsRevokedWhileThePublishedHostKeepsItsGrant() {
        harness.csi().createVolume(Requests.create("pvc-g3", GIB));
        harness.csi().controllerPublishVolume(Requests.publish("pvc-g3", NODE_A, Requests.rwo(), false));
        PillarVolumeState state = harness.state("pvc-g3").orElseThrow();
        harness.fakeAgents().allowInitiator(AGENT, AllowInitiatorRequest.newBuilder().setToken(token(state))
                .setVolumeId("pvc-g3").setHostNqn(NODE_B).build());

        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.fakeAgent().allowedHosts("pvc-g3"),
                hosts -> hosts.equals(List.of(NODE_A)));
        assertThat(awaitRevokedEvent("pvc-g3").getMessage()).contains(NODE_B).doesNotContain(NODE_A);
        assertThat(harness.fakeAgents().calls()).anyMatch(c -> c.startsWith("Reconcile ") && c.contains("pvc-g3"));
    }

    private Event awaitRevokedEvent(String volumeId) {
        return await().atMost(ControllerHarness.PATIENCE).until(() -> harness.events(volumeId).stream()
                .filter(e -> e.getReason().equals(StaleGrants.REVOKED)).findFirst(), e -> e.isPresent()).orElseThrow();
    }

    private long listings() {
        return harness.fakeAgents().calls().stream().filter(c -> c.startsWith("ListExports ")).count();
    }

    private static FencingToken token(PillarVolumeState state) {
        return FencingToken.newBuilder().setLifecycleUid(state.getMetadata().getUid())
                .setPublicationGeneration(state.getStatus().getPublicationGeneration()).build();
    }
}
