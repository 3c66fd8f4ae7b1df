package pillar.runtime.metrics;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import io.helidon.config.Config;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;

/**
 * One workload's meters, in a registry of its own (several workloads may share a JVM in tests), and
 * the one way to make them: histograms in seconds with the same buckets everywhere, counters, and
 * gauges read when scraped. Every workload has {@value #OPERATION_SECONDS}, labelled
 * {@code workload}, {@code method} and {@code code} (the gRPC status code's name).
 *
 * <p>Names start with {@code pillar_}; a counter's name is given without {@code _total}, which the
 * exposition adds. Label values must come from a closed set (method names, backend names, reasons):
 * never a volume, snapshot or node ID.
 *
 * <p>{@link #disabled} metrics are recorded but never served, and {@link #enabled()} tells the server
 * to install neither the endpoint nor the call timer: the setting {@code metrics.enabled=false},
 * which the benchmarks compare against.
 */
public final class WorkloadMetrics {
    /** Every gRPC call a workload serves, failures included. */
    public static final String OPERATION_SECONDS = "pillar_csi_operation_seconds";
    /** Where the health port serves the text exposition. */
    public static final String PATH = "/metrics";
    /** From 1 ms to 2 min: a configfs write to a linear clone's block copy. */
    static final double[] SECONDS_BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
            30, 60, 120};

    private final String workload;
    private final boolean enabled;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Histogram operations;

    private WorkloadMetrics(String workload, boolean enabled) {
        if (!workload.matches("[a-z]+")) {
            throw new IllegalArgumentException("a workload's name is lower-case letters: " + workload);
        }
        this.workload = workload;
        this.enabled = enabled;
        this.operations = histogram(OPERATION_SECONDS, "gRPC calls served, by method and status code",
                "workload", "method", "code");
    }

    /** Metrics served on {@value #PATH}, for {@code workload} ({@code agent}, {@code node}, {@code controller}). */
    public static WorkloadMetrics create(String workload) {
        return new WorkloadMetrics(workload, true);
    }

    /**
     * Metrics as configured: served unless the setting {@code metrics.enabled} is {@code false}; a value
     * other than true or false is refused (IllegalArgumentException), so a typo never turns them off.
     */
    public static WorkloadMetrics from(Config root, String workload) {
        String value = root.get("metrics.enabled").asString().orElse("true");
        return switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "true" -> create(workload);
            case "false" -> disabled(workload);
            default -> throw new IllegalArgumentException("metrics.enabled must be true or false, is '" + value + "'");
        };
    }

    /** Metrics recorded but neither served nor timed per call ({@code metrics.enabled=false}). */
    public static WorkloadMetrics disabled(String workload) {
        return new WorkloadMetrics(workload, false);
    }

    public String workload() {
        return workload;
    }

    public boolean enabled() {
        return enabled;
    }

    /** The histogram of served calls ({@value #OPERATION_SECONDS}). */
    Histogram operations() {
        return operations;
    }

    /** A histogram in seconds (its name ends in {@code _seconds}) with the common buckets. */
    public Histogram histogram(String name, String help, String... labelNames) {
        return Histogram.builder().name(name).help(help).unit(Unit.SECONDS).labelNames(labelNames)
                .classicOnly().classicUpperBounds(SECONDS_BUCKETS).withoutExemplars().register(registry);
    }

    /** A counter; {@code name} without {@code _total}. */
    public Counter counter(String name, String help, String... labelNames) {
        return Counter.builder().name(name).help(help).labelNames(labelNames).withoutExemplars().register(registry);
    }

    /** A gauge the code sets. */
    public Gauge gauge(String name, String help, String... labelNames) {
        return Gauge.builder().name(name).help(help).labelNames(labelNames).withoutExemplars().register(registry);
    }

    /** A gauge read at each scrape: {@code read} calls back once per label set with the value. */
    public void gauge(String name, String help, Consumer<GaugeWithCallback.Callback> read, String... labelNames) {
        GaugeWithCallback.builder().name(name).help(help).labelNames(labelNames).callback(read).register(registry);
    }

    /** Writes every meter in Prometheus' text format (version 0.0.4). */
    public void write(OutputStream out) throws IOException {
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
    }

    /** {@link #write} into a string. */
    public String scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The exposition's content type. */
    public static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }
}
