package pillar.controller.leader;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;

/**
 * A lock that remembers when this replica last wrote the lease as its holder, so that the replica
 * can tell, on its own clock, whether it may still act as leader: a leader that cannot renew (cut
 * off the API server, its renew loop stuck or dead) stops acting once its renew deadline passes,
 * whatever the election library believes.
 */
final class RenewalTrackingLock implements Lock {
    private final Lock lock;
    private final AtomicLong renewedAt = new AtomicLong(Long.MIN_VALUE);

    RenewalTrackingLock(Lock lock) {
        this.lock = lock;
    }

    /** System.nanoTime() of the last successful write as holder; Long.MIN_VALUE when none or released. */
    long renewedAt() {
        return renewedAt.get();
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
        return lock.get(client);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
        long before = System.nanoTime();
        lock.create(client, record);
        noteWrite(record, before);
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
        long before = System.nanoTime();
        lock.update(client, record);
        noteWrite(record, before);
    }

    /** The time taken is the moment before the write: the lease may have been renewed no later. */
    private void noteWrite(LeaderElectionRecord record, long before) {
        renewedAt.set(Objects.equals(record.getHolderIdentity(), identity()) ? before : Long.MIN_VALUE);
    }

    @Override
    public String identity() {
        return lock.identity();
    }

    @Override
    public String describe() {
        return lock.describe();
    }
}
