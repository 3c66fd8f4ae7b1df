package pillar.bench.stats;

import java.util.Locale;

/** What a table shows of a set of durations (nanoseconds): count, median, 99th percentile, maximum, mean. */
public record Summary(int count, long p50, long p99, long max, long mean) {
    public static Summary of(long[] sorted) {
        if (sorted.length == 0) {
            return new Summary(0, 0, 0, 0, 0);
        }
        long sum = 0;
        for (long v : sorted) {
            sum += v;
        }
        return new Summary(sorted.length, Samples.percentile(sorted, 50), Samples.percentile(sorted, 99),
                sorted[sorted.length - 1], sum / sorted.length);
    }

    /** Milliseconds with one decimal below 100 ms, whole above: {@code 0.4}, {@code 12.7}, {@code 230}. */
    public static String millis(long nanos) {
        double ms = nanos / 1e6;
        return ms < 100 ? String.format(Locale.ROOT, "%.1f", ms) : String.format(Locale.ROOT, "%.0f", ms);
    }
}
