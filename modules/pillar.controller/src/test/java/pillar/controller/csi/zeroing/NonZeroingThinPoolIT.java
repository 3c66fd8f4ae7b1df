package pillar.controller.csi.zeroing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;


import io.grpc.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.Reasons;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * Proves that no volume is created on a thin pool that does not zero new chunks unless its store
 * accepts it: refused (FAILED_PRECONDITION, nothing on the agent) while the store does not; once it
 * does, CreateVolume reaches the agent with the acceptance set (the fake, as the agent, refuses a
 * create on such a pool without it).
 */
class NonZeroingThinPoolIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @BeforeEach
    void aPoolThatDoesNotZero() {
        harness.fakeAgent().backendProblem("fast", Reasons.THIN_POOL_NOT_ZEROING, "thin pool vg0/pool0 does not zero new chunks");
    }

    private void awaitStore(String status, String reason) {
        await().atMost(ControllerHarness.PATIENCE).until(() -> {
            PillarStore store = harness.client().resources(PillarStore.class).withName(CsiHarness.STORE).get();
            return store != null && store.getStatus() != null && store.getStatus().getConditions().stream()
                    .anyMatch(c -> PillarStore.POOL_DISCOVERED.equals(c.getType()) && status.equals(c.getStatus())
                            && reason.equals(c.getReason()));
        });
    }

    @Test
    void aVolumeIsCreatedOnANonZeroingThinPoolOnlyOnceTheStoreAcceptsIt() {
        awaitStore(Condition.FALSE, Reasons.THIN_POOL_NOT_ZEROING);
        String refused = assertCode(Status.Code.FAILED_PRECONDITION, () -> harness.csi().createVolume(Requests.create("pvc-1", GIB)));
        assertThat(refused).contains(Reasons.THIN_POOL_NOT_ZEROING);
        assertThat(harness.fakeAgent().volumes()).isEmpty();
        assertThat(harness.states()).isEmpty();

        harness.client().resources(PillarStore.class).withName(CsiHarness.STORE).edit(s -> {
            s.getSpec().getLvm().setAcceptNonZeroingThinPool(true);
            return s;
        });
        awaitStore(Condition.TRUE, Reasons.DISCOVERED);
        harness.csi().createVolume(Requests.create("pvc-1", GIB));
        assertThat(harness.fakeAgent().volumes()).containsOnlyKeys("pvc-1");
    }
}
