package pillar.bench.stats;

import java.util.Arrays;

/**
 * Durations in nanoseconds, kept whole (a benchmark run holds thousands, not millions): percentiles
 * are read from a sorted copy by nearest rank, so every figure reported is a time that was measured.
 * Thread-safe.
 */
public final class Samples {
    private long[] values = new long[64];
    private int size;

    public synchronized void add(long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("a duration cannot be negative: " + nanos);
        }
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    public synchronized void addAll(Samples other) {
        for (long v : other.sorted()) {
            add(v);
        }
    }

    public synchronized int count() {
        return size;
    }

    public synchronized long[] sorted() {
        long[] copy = Arrays.copyOf(values, size);
        Arrays.sort(copy);
        return copy;
    }

    public Summary summary() {
        return Summary.of(sorted());
    }

    /**
     * The nearest-rank percentile of sorted values: the smallest value with at least {@code p} percent
     * of the values at or below it ({@code p} in (0, 100]).
     */
    public static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            throw new IllegalArgumentException("no values");
        }
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile must be in (0, 100], is " + p);
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(rank, 1) - 1];
    }
}
