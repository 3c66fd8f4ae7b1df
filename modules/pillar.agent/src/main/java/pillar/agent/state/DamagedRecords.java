package pillar.agent.state;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.logging.Logger;

import pillar.runtime.metrics.WorkloadMetrics;

/**
 * The durable records (export records, fencing marks) this agent found damaged: each is reported once
 * as an error in the log, counted in the gauge {@value #GAUGE}, listed in GetCapabilities (the
 * controller's PillarAgent condition {@code RecordsIntact}) and left on disk for an operator, who
 * restores or removes it; the agent serves every other volume meanwhile. A record read whole again
 * later (restored by the operator) is taken off the list.
 */
public final class DamagedRecords {
    /** The gauge of damaged records, by kind ({@code export}, {@code mark}). */
    public static final String GAUGE = "pillar_agent_damaged_records";
    private static final Logger LOG = Logger.getLogger(DamagedRecords.class.getName());

    /** One damaged file: what it is ({@code export}, {@code mark}), where, and what is wrong with it. */
    public record Damage(String kind, Path file, String reason) {
        /** One line for a person: the file, what is wrong, what to do. */
        public String describe() {
            return "the " + (kind.equals("mark") ? "fencing mark" : "export record") + " " + file + " is damaged (" + reason
                    + "): its volume is refused until an operator restores or removes the file";
        }
    }

    private final Map<Path, Damage> damaged = new ConcurrentSkipListMap<>();

    /** Records that a file is damaged; logged as an error the first time (and again when its damage changes). */
    public void report(String kind, Path file, String reason) {
        Damage damage = new Damage(kind, file.toAbsolutePath(), reason);
        Damage before = damaged.put(damage.file(), damage);
        if (!damage.equals(before)) {
            LOG.severe(damage.describe());
        }
    }

    /** The file was read whole: it is no longer damaged. */
    public void healed(Path file) {
        if (damaged.remove(file.toAbsolutePath()) != null) {
            LOG.info(() -> file + " is no longer damaged (restored, or removed with its export)");
        }
    }

    /** Every damaged record now, by file name. */
    public List<Damage> list() {
        return List.copyOf(damaged.values());
    }

    /** Serves the count, by kind, as {@value #GAUGE} (unless the metrics are disabled, when nothing is served). */
    public void register(WorkloadMetrics metrics) {
        metrics.gauge(GAUGE, "durable records (export records, fencing marks) found damaged and left for an operator",
                callback -> {
                    for (String kind : List.of("export", "mark")) {
                        callback.call(damaged.values().stream().filter(d -> d.kind().equals(kind)).count(), kind);
                    }
                }, "kind");
    }
}
