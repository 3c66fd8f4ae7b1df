package pillar.agent.metrics;

import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import pillar.agent.backend.VolumeBackend;
import pillar.agent.config.BackendConfig;
import pillar.agent.export.ExportRecord;
import pillar.agent.export.ExportStore;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * The agent's gauges, each labelled {@code backend} (a configured store's name) and read when scraped:
 * {@code pillar_agent_exports}, the durable export records (NVMe-oF and NFS), read from the state directory at each
 * scrape; {@code pillar_agent_volumes}, {@code pillar_agent_store_capacity_bytes},
 * {@code pillar_agent_store_free_bytes} and, for LVM thin stores, {@code pillar_agent_thin_pool_data_ratio}
 * and {@code pillar_agent_thin_pool_metadata_ratio} (0 to 1), which cost host commands and are read
 * through {@link StoreReadings} at most once per {@link #REFRESH}. A store never read yet, or whose
 * export records cannot be read now, is left out rather than failing the scrape.
 */
public final class StoreGauges {
    private static final Logger LOG = Logger.getLogger(StoreGauges.class.getName());
    /** How old the stores' readings may get before a scrape reads them again. */
    public static final Duration REFRESH = Duration.ofSeconds(30);

    private StoreGauges() {
    }

    /** Registers the gauges of the served {@code backends} (configured as {@code configs}) in {@code metrics}. */
    public static void register(WorkloadMetrics metrics, List<BackendConfig> configs, Map<String, VolumeBackend> backends,
                                ExportStore exports, InstantSource clock, Duration refresh) {
        Set<String> thin = configs.stream().filter(c -> c.kind() == BackendKind.BACKEND_KIND_LVM_THIN)
                .map(BackendConfig::name).collect(Collectors.toSet());
        StoreReadings readings = new StoreReadings(backends, thin, clock, refresh);
        metrics.gauge("pillar_agent_exports", "durable export records, by backend", callback -> {
            Map<String, Long> counts;
            try {
                // NVMe-oF and NFS records alike: each is one volume's durable export
                counts = java.util.stream.Stream.concat(exports.list().stream().map(ExportRecord::backend),
                        exports.listNfs().stream().map(pillar.agent.export.NfsExportRecord::backend))
                        .collect(Collectors.groupingBy(b -> b, Collectors.counting()));
            } catch (RuntimeException e) {
                LOG.fine(() -> "metrics leave the exports out: " + e);
                return;
            }
            backends.keySet().forEach(store -> callback.call(counts.getOrDefault(store, 0L), store));
        }, "backend");
        metrics.gauge("pillar_agent_volumes", "volumes, by backend", callback -> {
            readings.refreshIfDue();
            readings.volumes().forEach((store, count) -> callback.call(count, store));
        }, "backend");
        metrics.gauge("pillar_agent_store_capacity_bytes", "bytes a backend offers in all, by backend", callback -> {
            readings.refreshIfDue();
            readings.capacity().forEach((store, capacity) -> callback.call(capacity.total().bytes(), store));
        }, "backend");
        metrics.gauge("pillar_agent_store_free_bytes", "bytes a backend has left for new volumes, by backend", callback -> {
            readings.refreshIfDue();
            readings.capacity().forEach((store, capacity) -> callback.call(capacity.available().bytes(), store));
        }, "backend");
        metrics.gauge("pillar_agent_thin_pool_data_ratio", "an LVM thin pool's data usage, 0 to 1, by backend", callback -> {
            readings.refreshIfDue();
            readings.thinPools().forEach((store, usage) -> callback.call(usage.dataPercent() / 100, store));
        }, "backend");
        metrics.gauge("pillar_agent_thin_pool_metadata_ratio", "an LVM thin pool's metadata usage, 0 to 1, by backend",
                callback -> {
                    readings.refreshIfDue();
                    readings.thinPools().forEach((store, usage) -> callback.call(usage.metadataPercent() / 100, store));
                }, "backend");
    }
}
