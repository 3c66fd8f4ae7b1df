package pillar.runtime.metrics;

import java.util.function.Predicate;

import io.prometheus.metrics.core.metrics.Histogram;

/**
 * Times calls into a histogram labelled by what was called (one label, from a closed set) and
 * {@code outcome}: {@code ok}, {@code failed}, or {@code timeout} when the call's exception says it
 * ran out of time. The exception is rethrown as it was.
 */
public final class OutcomeTimer {
    /** A call that may throw {@code E}. */
    @FunctionalInterface
    public interface Call<T, E extends Exception> {
        T run() throws E;
    }

    private final Histogram seconds;
    private final Predicate<Exception> timedOut;

    /** A histogram {@code name} (ending in {@code _seconds}) labelled {@code label} and {@code outcome}. */
    public OutcomeTimer(WorkloadMetrics metrics, String name, String help, String label, Predicate<Exception> timedOut) {
        this.seconds = metrics.histogram(name, help, label, "outcome");
        this.timedOut = timedOut;
    }

    /** Runs {@code call}, timed under {@code what}. */
    public <T, E extends Exception> T time(String what, Call<T, E> call) throws E {
        long started = System.nanoTime();
        String outcome = "failed";
        try {
            T result = call.run();
            outcome = "ok";
            return result;
        } catch (Exception e) {
            outcome = timedOut.test(e) ? "timeout" : "failed";
            throw e;
        } finally {
            seconds.labelValues(what, outcome).observe((System.nanoTime() - started) / 1e9);
        }
    }
}
