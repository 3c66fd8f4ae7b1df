package pillar.controller.csi.protection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;


import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.context.PublishContext;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * A PillarVolumeState is the only record of its volume: every state carries the controller's
 * finalizer, so one deleted by hand (kubectl delete) stays, Terminating, and the volume goes on
 * working (publish, unpublish) until DeleteVolume, which removes the finalizer and the state with the
 * volume. Meanwhile the controller says so in a Warning event.
 */
class StateFinalizerIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void everyStateCarriesTheFinalizerAndDeleteVolumeRemovesItWithTheState() {
        harness.csi().createVolume(Requests.create("pvc-1", GIB));
        assertThat(harness.state("pvc-1").orElseThrow().getMetadata().getFinalizers()).containsExactly(PillarVolumeState.FINALIZER);

        harness.csi().deleteVolume(Requests.delete("pvc-1"));
        assertThat(harness.state("pvc-1")).isEmpty();
        assertThat(harness.fakeAgent().volumes()).isEmpty();
    }

    @Test
    void aStateDeletedByHandIsKeptAndWorksUntilDeleteVolume() {
        harness.csi().createVolume(Requests.create("pvc-1", GIB));
        String lifecycle = harness.state("pvc-1").orElseThrow().getMetadata().getUid();

        harness.client().resources(PillarVolumeState.class).withName("pvc-1").delete();
        PillarVolumeState held = harness.state("pvc-1").orElseThrow();
        assertThat(held.getMetadata().getDeletionTimestamp()).as("Terminating").isNotNull();
        assertThat(held.getMetadata().getUid()).as("the same lifecycle").isEqualTo(lifecycle);
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.client().v1().events().inNamespace(ControllerHarness.NAMESPACE)
                .list().getItems().stream().anyMatch(e -> "pvc-1".equals(e.getInvolvedObject().getName())
                        && "Warning".equals(e.getType()) && PillarVolumeState.DELETION_HELD.equals(e.getReason())));

        String nqn = harness.csi().controllerPublishVolume(Requests.publish("pvc-1", NODE_A, Requests.rwo(), false))
                .getPublishContextMap().get(PublishContext.NQN);
        assertThat(nqn).isNotEmpty();
        assertThat(harness.fakeAgent().allowedHosts("pvc-1")).containsExactly(NODE_A);
        assertThat(harness.state("pvc-1").orElseThrow().getStatus().getPublications()).hasSize(1);
        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-1", NODE_A));
        assertThat(harness.fakeAgent().allowedHosts("pvc-1")).isEmpty();

        harness.csi().deleteVolume(Requests.delete("pvc-1"));
        assertThat(harness.state("pvc-1")).as("gone with the volume").isEmpty();
        assertThat(harness.fakeAgent().volumes()).isEmpty();
        assertThat(harness.fakeAgent().mark("pvc-1").orElseThrow().lifecycle().value()).isEqualTo(lifecycle);
    }
}
