package pillar.controller.reconcile;

import java.time.Duration;
import pillar.controller.reconcile.loop.Backoff;

/**
 * How the reconcilers pace themselves.
 *
 * @param pollInterval how often a connected agent and a discovered pool are looked at again
 *                     (capacity, agent restarts with another configuration)
 * @param backoff      the retry delays after failures
 * @param resync       the informers' periodic resync: every object is reconciled at least this often
 */
public record ReconcileSettings(Duration pollInterval, Backoff backoff, Duration resync) {
    public ReconcileSettings {
        if (pollInterval.isNegative() || pollInterval.isZero()) {
            throw new IllegalArgumentException("controller.poll-interval must be positive, is " + pollInterval);
        }
        if (resync.isNegative() || resync.isZero()) {
            throw new IllegalArgumentException("controller.resync must be positive, is " + resync);
        }
    }

    /** Agents and pools every 30 s; retries from 1 s to 2 min; resync every 10 min. */
    public static ReconcileSettings defaults() {
        return new ReconcileSettings(Duration.ofSeconds(30), new Backoff(Duration.ofSeconds(1), Duration.ofMinutes(2)),
                Duration.ofMinutes(10));
    }
}
