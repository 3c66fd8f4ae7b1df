package pillar.bench.control;

import io.prometheus.metrics.core.metrics.Histogram;

import pillar.runtime.metrics.WorkloadMetrics;

/**
 * What metrics cost counted from the bottom up, for when a side-by-side comparison cannot resolve it
 * (its noise floor is larger than the difference): how many records a workload made (every histogram
 * observation and counter increment it exposes, read from its own {@code /metrics}) times what one
 * record costs here, measured in this JVM on the same library with the same shape (three labels, the
 * workloads' buckets, two clock reads per timed call). Gauges read at a scrape are in the scrape's cost,
 * measured apart. A model, not a measurement of the workload: it leaves out cache effects, so it is
 * printed beside the comparison, never instead of it.
 */
final class MetricsAttribution {
    private static final int WARM = 2_000_000;
    private static final int MEASURED = 5_000_000;
    private static final String[] METHODS = {"CreateVolume", "DeleteVolume", "ControllerPublishVolume", "NodeStageVolume",
            "NodeUnstageVolume", "NodePublishVolume", "NodeUnpublishVolume", "ExportVolume"};
    private static final String[] CODES = {"OK", "NOT_FOUND", "FAILED_PRECONDITION"};

    private MetricsAttribution() {
    }

    /** Nanoseconds of one timed record: two {@code System.nanoTime} reads, a label lookup and an observation. */
    static double nanosPerRecord() {
        Histogram histogram = WorkloadMetrics.create("bench").histogram("pillar_bench_seconds", "the bench's own", "workload",
                "method", "code");
        loop(histogram, WARM);
        long started = System.nanoTime();
        loop(histogram, MEASURED);
        return (double) (System.nanoTime() - started) / MEASURED;
    }

    private static void loop(Histogram histogram, int records) {
        for (int i = 0; i < records; i++) {
            long t0 = System.nanoTime();
            String method = METHODS[i % METHODS.length];
            String code = CODES[(i >>> 3) % CODES.length];
            histogram.labelValues("node", method, code).observe((System.nanoTime() - t0) / 1e9);
        }
    }

    /** Every record a scrape shows: the sum of its {@code _count} and {@code _total} samples. */
    static long records(String exposition) {
        long sum = 0;
        for (String line : exposition.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            int brace = series.indexOf('{');
            String name = brace < 0 ? series : series.substring(0, brace);
            if (name.endsWith("_count") || name.endsWith("_total")) {
                sum += (long) Double.parseDouble(line.substring(space + 1));
            }
        }
        return sum;
    }
}
