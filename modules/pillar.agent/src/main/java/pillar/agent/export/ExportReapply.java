package pillar.agent.export;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.logging.Logger;

import pillar.api.value.Nqn;

/**
 * At start-up, re-applies every durable export to the kernel: after a reboot configfs is empty, after
 * a restart it may have drifted. The drift found is logged per volume first; each record is then
 * applied on its own (one that fails is reported and the others still go through); last, pillar-csi
 * subsystems with no durable record (left by a crash between the record's removal and the kernel's)
 * are removed.
 */
public final class ExportReapply {
    private static final Logger LOG = Logger.getLogger(ExportReapply.class.getName());

    private ExportReapply() {
    }

    /** Returns the failures, one line each; empty when every export is in place. */
    public static List<String> run(ExportStore exports, Exporter exporter) {
        List<String> failures = new ArrayList<>();
        List<ExportRecord> records = exports.list();
        long start = System.nanoTime();
        for (ExportRecord record : records) {
            try {
                List<String> drift = exporter.drift(record);
                if (!drift.isEmpty()) {
                    LOG.warning("volume " + record.volume() + ": drift found at start-up: " + String.join("; ", drift));
                }
                exporter.apply(record);
            } catch (RuntimeException e) {
                failures.add(record.volume() + ": " + e.getMessage());
                LOG.severe("could not re-apply the export of volume " + record.volume() + ": " + e.getMessage());
            }
        }
        Set<String> recorded = records.stream().map(r -> r.subsystem().value()).collect(Collectors.toSet());
        for (Nqn orphan : exporter.exportedSubsystems()) {
            if (!recorded.contains(orphan.value())) {
                try {
                    exporter.remove(orphan);
                    LOG.warning("removed " + orphan + ": exported in the kernel but with no durable record");
                } catch (RuntimeException e) {
                    failures.add(orphan + ": " + e.getMessage());
                    LOG.severe("could not remove the orphan export " + orphan + ": " + e.getMessage());
                }
            }
        }
        LOG.info(() -> "re-applied " + (records.size() - failures.size()) + " of " + records.size() + " exports in "
                + (System.nanoTime() - start) / 1_000_000 + " ms");
        return failures;
    }
}
