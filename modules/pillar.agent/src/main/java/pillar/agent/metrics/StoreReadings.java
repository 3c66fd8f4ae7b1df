package pillar.agent.metrics;

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
 * name. {@link #refresh} reads them again on the caller's thread (the gauges' refresher), one refresh
 * at a time; the getters only return the last readings, so a scrape never waits for a command. A part
 * that fails keeps its last reading (none before it first succeeds) and is retried at the next
 * refresh, not sooner. An interrupted refresh reads no further part.
 */
final class StoreReadings {
    private static final Logger LOG = Logger.getLogger(StoreReadings.class.getName());

    private final Map<String, VolumeBackend> backends;
    private final Set<String> thinStores;
    private final ReentrantLock refreshing = new ReentrantLock();
    private final Map<String, Integer> volumes = new ConcurrentHashMap<>();
    private final Map<String, VolumeBackend.Capacity> capacity = new ConcurrentHashMap<>();
    private final Map<String, PoolHealth.ThinUsage> thinPools = new ConcurrentHashMap<>();

    /** @param thinStores the names of the LVM thin stores, whose pool usage is read */
    StoreReadings(Map<String, VolumeBackend> backends, Set<String> thinStores) {
        this.backends = Map.copyOf(backends);
        this.thinStores = Set.copyOf(thinStores);
    }

    /**
     * Reads every store again, unless a refresh runs now (one stuck in a command included): then it
     * returns false at once, having run nothing.
     */
    boolean refresh() {
        if (!refreshing.tryLock()) {
            return false;
        }
        try {
            backends.forEach(this::read);
            return true;
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
        if (Thread.currentThread().isInterrupted()) {
            return; // stopping: a command started now would be killed at once
        }
        try {
            read.run();
        } catch (RuntimeException e) {
            LOG.fine(() -> "metrics keep the last " + what + " of backend " + store + ": " + e);
        }
    }
}
