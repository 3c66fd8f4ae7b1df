package pillar.controller.leader;

import java.time.Duration;

import pillar.controller.crd.Grammars;

/**
 * How replicas elect their leader: a coordination.k8s.io Lease of that name in the controller's
 * namespace, held by {@code identity}, renewed every {@code retryPeriod}; a leader that could not
 * renew for {@code renewDeadline} stops leading, and another may take the lease once it was not
 * renewed for {@code leaseDuration}.
 */
public record LeaderElectionSettings(boolean enabled, String lease, String identity, Duration leaseDuration,
                                     Duration renewDeadline, Duration retryPeriod) {
    /** Retries are jittered up to this factor, so the renew deadline must exceed the retry period by it. */
    private static final double JITTER = 1.2;

    public LeaderElectionSettings {
        if (!Grammars.isObjectName(lease)) {
            throw new IllegalArgumentException("controller.leader-election.lease must be a Lease name, is " + Grammars.printable(lease));
        }
        if (identity.isEmpty() || identity.length() > 128) {
            throw new IllegalArgumentException("controller.leader-election.identity must be 1 to 128 characters");
        }
        if (retryPeriod.isNegative() || retryPeriod.isZero()) {
            throw new IllegalArgumentException("controller.leader-election.retry-period must be positive");
        }
        if (renewDeadline.toMillis() <= JITTER * retryPeriod.toMillis()) {
            throw new IllegalArgumentException("controller.leader-election.renew-deadline (" + renewDeadline
                    + ") must exceed 1.2 x retry-period (" + retryPeriod + ")");
        }
        if (leaseDuration.compareTo(renewDeadline) <= 0) {
            throw new IllegalArgumentException("controller.leader-election.lease-duration (" + leaseDuration
                    + ") must exceed renew-deadline (" + renewDeadline + ")");
        }
    }

    /** Enabled, Lease {@code pillar-controller}, 15 s lease, 10 s renew deadline, 2 s retry period. */
    public static LeaderElectionSettings defaults(String identity) {
        return new LeaderElectionSettings(true, "pillar-controller", identity, Duration.ofSeconds(15), Duration.ofSeconds(10),
                Duration.ofSeconds(2));
    }
}
