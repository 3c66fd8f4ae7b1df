package pillar.agent.metrics;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Logger;

import pillar.agent.backend.PoolHealth;
import pillar.agent.backend.VolumeBackend;

/**
 * What each store's host commands tell, for the gauges: its volume count ({@link VolumeBackend#list}),
 * its capacity, and for the LVM thin stores its pool's usage ({@link VolumeBackend#health}), by store
 * name. {@link #refreshIfDue} reads them again only once the last refresh is {@code interval} old,
 * on the caller's thread; a caller that finds another refreshing goes on with the last readings, so
 * two never run at once. A part that fails keeps its last reading (none before it first succeeds)
 * and is retried at the next refresh, not sooner.
 */
final class StoreReadings {
    private static final Logger LOG = Logger.getLogger(StoreReadings.class.getName());

    private final Map<String, VolumeBackend> backends;
    private final Set<String> thinStores;
    private final InstantSource clock;
    private final Duration interval;
    private final ReentrantLock refreshing = new ReentrantLock();
    private volatile Instant due = Instant.MIN;
    private final Map<String, Integer> volumes = new ConcurrentHashMap<>();
    private final Map<String, VolumeBackend.Capacity> capacity = new ConcurrentHashMap<>();
    private final Map<String, PoolHealth.ThinUsage> thinPools = new ConcurrentHashMap<>();

    /** @param thinStores the names of the LVM thin stores, whose pool usage is read */
    StoreReadings(Map<String, VolumeBackend> backends, Set<String> thinStores, InstantSource clock, Duration interval) {
        this.backends = Map.copyOf(backends);
        this.thinStores = Set.copyOf(thinStores);
        this.clock = clock;
        this.interval = interval;
    }

    /** Reads every store again if the last refresh is {@code interval} old and none runs now. */
    void refreshIfDue() {
        if (clock.instant().isBefore(due) || !refreshing.tryLock()) {
            return;
        }
        try {
            if (clock.instant().isBefore(due)) {
                return; // another caller refreshed meanwhile
            }
            backends.forEach(this::read);
            due = clock.instant().plus(interval);
        } finally {
            refreshing.unlock();
        }
    }

    Map<String, Integer> volumes() {
        return Collections.unmodifiableMap(volumes);
    }

    Map<String, VolumeBackend.Capacity> capacity() {
        return Collections.unmodifiableMap(capacity);
    }

    Map<String, PoolHealth.ThinUsage> thinPools() {
        return Collections.unmodifiableMap(thinPools);
    }

    private void read(String store, VolumeBackend backend) {
        part(store, "volumes", () -> volumes.put(store, backend.list().size()));
        part(store, "capacity", () -> capacity.put(store, backend.capacity()));
        if (thinStores.contains(store)) {
            part(store, "thin pool usage", () -> backend.health().thin().ifPresent(usage -> thinPools.put(store, usage)));
        }
    }

    private static void part(String store, String what, Runnable read) {
        try {
            read.run();
        } catch (RuntimeException e) {
            LOG.fine(() -> "metrics keep the last " + what + " of backend " + store + ": " + e);
        }
    }
}
