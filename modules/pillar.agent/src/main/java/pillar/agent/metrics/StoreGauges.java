package pillar.agent.metrics;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.export.ExportRecord;
import pillar.agent.export.ExportStore;
import pillar.agent.export.NfsExportRecord;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * The agent's gauges, each labelled {@code backend} (a configured store's name):
 * {@code pillar_agent_exports}, the durable export records (NVMe-oF and NFS), and
 * {@code pillar_agent_export_allowed_hosts}, the hosts those records admit (NVMe-oF host NQNs, NFS
 * client addresses), summed over the backend's exports, both read from the state directory at each
 * scrape; and {@code pillar_agent_volumes}, {@code pillar_agent_store_capacity_bytes},
 * {@code pillar_agent_store_free_bytes} and, for LVM thin stores, {@code pillar_agent_thin_pool_data_ratio}
 * and {@code pillar_agent_thin_pool_metadata_ratio} (0 to 1), which cost host commands ({@code vgs},
 * {@code lvs}, {@code zfs list}) and so are never read by a scrape: once {@linkplain #start started}, a
 * daemon thread of their own ({@value #THREAD}) reads every store through {@link StoreReadings} at once
 * and then every {@link #REFRESH} after the last refresh ended, and a scrape takes the last readings.
 * A command that hangs (a suspended pool, a slow LVM scan) holds up that thread only: scrapes go on
 * with the last readings, and no other refresh starts until it returns. A store never read yet, or
 * whose export records cannot be read now, is left out rather than failing the scrape; a failed
 * reading keeps its last value. {@link #close} stops the thread, interrupting a command it waits for.
 */
public final class StoreGauges implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(StoreGauges.class.getName());
    /** The pause between two refreshes of the stores' readings. */
    public static final Duration REFRESH = Duration.ofSeconds(30);
    /** The name of the thread that refreshes the stores' readings. */
    public static final String THREAD = "store-gauges";

    private final StoreReadings readings;
    private final Duration every;
    private final Pause pause;
    private Thread refresher;
    private volatile boolean closed;

    /** How the refresher waits between refreshes: {@link Thread#sleep(Duration)}, but in tests. */
    @FunctionalInterface
    interface Pause {
        void pause(Duration duration) throws InterruptedException;
    }

    private StoreGauges(StoreReadings readings, Duration every, Pause pause) {
        this.readings = readings;
        this.every = every;
        this.pause = pause;
    }

    /**
     * Registers the gauges of the served {@code backends} (configured as {@code configs}) in {@code metrics};
     * the stores' readings stay empty until {@link #start}.
     */
    public static StoreGauges register(WorkloadMetrics metrics, List<BackendConfig> configs,
                                       Map<String, VolumeBackend> backends, ExportStore exports) {
        return register(metrics, configs, backends, exports, REFRESH, Thread::sleep);
    }

    static StoreGauges register(WorkloadMetrics metrics, List<BackendConfig> configs, Map<String, VolumeBackend> backends,
                                ExportStore exports, Duration every, Pause pause) {
        Set<String> thin = configs.stream().filter(c -> c.kind() == BackendKind.BACKEND_KIND_LVM_THIN)
                .map(BackendConfig::name).collect(Collectors.toSet());
        StoreReadings readings = new StoreReadings(backends, thin);
        metrics.gauge("pillar_agent_exports", "durable export records, by backend", callback -> {
            // NVMe-oF and NFS records alike: each is one volume's durable export
            Map<String, Long> counts = perBackend(exports, r -> 1, n -> 1);
            if (counts != null) {
                backends.keySet().forEach(store -> callback.call(counts.getOrDefault(store, 0L), store));
            }
        }, "backend");
        metrics.gauge("pillar_agent_export_allowed_hosts",
                "hosts the durable exports admit (NVMe-oF host NQNs, NFS clients), summed over a backend's exports",
                callback -> {
                    Map<String, Long> hosts = perBackend(exports, r -> r.allowedHosts().size(), n -> n.clients().size());
                    if (hosts != null) {
                        backends.keySet().forEach(store -> callback.call(hosts.getOrDefault(store, 0L), store));
                    }
                }, "backend");
        // the last readings only: the refresher runs the commands
        metrics.gauge("pillar_agent_volumes", "volumes, by backend",
                callback -> readings.volumes().forEach((store, count) -> callback.call(count, store)), "backend");
        metrics.gauge("pillar_agent_store_capacity_bytes", "bytes a backend offers in all, by backend",
                callback -> readings.capacity().forEach((store, capacity) -> callback.call(capacity.total().bytes(), store)),
                "backend");
        metrics.gauge("pillar_agent_store_free_bytes", "bytes a backend has left for new volumes, by backend",
                callback -> readings.capacity().forEach((store, capacity) -> callback.call(capacity.available().bytes(), store)),
                "backend");
        metrics.gauge("pillar_agent_thin_pool_data_ratio", "an LVM thin pool's data usage, 0 to 1, by backend",
                callback -> readings.thinPools().forEach((store, usage) -> callback.call(usage.dataPercent() / 100, store)),
                "backend");
        metrics.gauge("pillar_agent_thin_pool_metadata_ratio", "an LVM thin pool's metadata usage, 0 to 1, by backend",
                callback -> readings.thinPools().forEach((store, usage) -> callback.call(usage.metadataPercent() / 100, store)),
                "backend");
        return new StoreGauges(readings, every, pause);
    }

    /**
     * The sum over each backend's export records of {@code nvme} (an NVMe-oF record's) or {@code nfs} (an NFS
     * record's) value; null, logged, when the records cannot be read now (the gauge is left out of this scrape).
     */
    private static Map<String, Long> perBackend(ExportStore exports, ToIntFunction<ExportRecord> nvme,
                                                ToIntFunction<NfsExportRecord> nfs) {
        try {
            Map<String, Long> sums = new HashMap<>();
            exports.list(ExportRecord.class).forEach(r -> sums.merge(r.backend(), (long) nvme.applyAsInt(r), Long::sum));
            exports.list(NfsExportRecord.class).forEach(r -> sums.merge(r.backend(), (long) nfs.applyAsInt(r), Long::sum));
            return sums;
        } catch (RuntimeException e) {
            LOG.fine(() -> "metrics leave the exports out: " + e);
            return null;
        }
    }

    /** Starts the refresher, whose first refresh begins at once; once only, and never after {@link #close}. */
    public synchronized void start() {
        if (closed || refresher != null) {
            return;
        }
        refresher = Thread.ofPlatform().daemon().name(THREAD).start(this::refreshUntilClosed);
    }

    /** Stops the refresher: a refresh under way reads no further store, a command it waits for is interrupted. */
    @Override
    public synchronized void close() {
        closed = true;
        if (refresher != null) {
            refresher.interrupt();
        }
    }

    /** One refresh now, on the caller's thread; false, having run nothing, when one runs already. */
    boolean refreshNow() {
        return readings.refresh();
    }

    /** Whether the refresher has ended (or never started) within {@code patience}. */
    boolean awaitStopped(Duration patience) throws InterruptedException {
        Thread thread;
        synchronized (this) {
            thread = refresher;
        }
        return thread == null || thread.join(patience);
    }

    private void refreshUntilClosed() {
        try {
            while (!closed) {
                try {
                    readings.refresh();
                } catch (RuntimeException e) {
                    // each part's failure is caught where it is read: this is a bug, but the gauges live on
                    LOG.warning("a refresh of the store gauges failed: " + e);
                }
                if (!closed) {
                    pause.pause(every);
                }
            }
        } catch (InterruptedException e) {
            // closed
        }
    }
}
