package pillar.controller.csi.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.csi.CsiHarness;
import pillar.controller.reconcile.ControllerHarness;

/**
 * A leader that is stopped (SIGTERM: a rolling update, a drained node) stops acting and then gives
 * its Lease up, so the standby leads at once rather than after the lease's duration.
 */
class LeaseHandoverIT {
    /** FailoverScenarios.ELECTION's lease duration: before it, only a release lets another replica in. */
    private static final Duration LEASE = Duration.ofSeconds(8);

    @RegisterExtension
    final CsiHarness harness = CsiHarness.fakeAgentOnly();

    @Test
    void aStoppedLeaderReleasesItsLeaseAndTheStandbyLeads() {
        CsiHarness.Controller a = harness.startController("replica-a", true, FailoverScenarios.ELECTION);
        await().atMost(ControllerHarness.PATIENCE).until(() -> a.workload().leading());
        CsiHarness.Controller b = harness.startController("replica-b", true, FailoverScenarios.ELECTION);
        String identityA = a.workload().identity().orElseThrow();
        assertThat(holder(harness)).isEqualTo(identityA);
        assertThat(b.workload().leading()).isFalse();

        harness.stop(a);
        // timed from the end of the stop: A renews until its election closes, the stop's last step, and
        // stopping A's reconcilers and server took up to 30 s once on a loaded machine
        long stopped = System.nanoTime();
        await().atMost(ControllerHarness.PATIENCE).until(() -> b.workload().leading());
        // without the release, B could take the Lease only once A's last renewal was 8 s old
        assertThat(Duration.ofNanos(System.nanoTime() - stopped))
                .as("replica B leads well before A's lease could have expired (else the release was not what let it in)")
                .isLessThan(LEASE.dividedBy(2));
        assertThat(holder(harness)).isEqualTo(b.workload().identity().orElseThrow());
    }

    private static String holder(CsiHarness harness) {
        Lease lease = harness.client().leases().inNamespace(ControllerHarness.NAMESPACE).withName("pillar-controller").get();
        return Optional.ofNullable(lease).map(l -> l.getSpec().getHolderIdentity()).orElse("");
    }
}
