package pillar.agent.export;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * At start-up, re-applies every durable export to the kernel: after a reboot configfs is empty, after
 * a restart it may have drifted. Each record is applied on its own; one that fails is reported and
 * the others still go through.
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
                exporter.apply(record);
            } catch (RuntimeException e) {
                failures.add(record.volume() + ": " + e.getMessage());
                LOG.severe("could not re-apply the export of volume " + record.volume() + ": " + e.getMessage());
            }
        }
        LOG.info(() -> "re-applied " + (records.size() - failures.size()) + " of " + records.size() + " exports in "
                + (System.nanoTime() - start) / 1_000_000 + " ms");
        return failures;
    }
}
