package pillar.bench.control;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

import pillar.runtime.metrics.WorkloadMetrics;

/** The bottom-up count reads a real exposition: observations and increments, nothing else. */
class MetricsAttributionTest {
    @Test
    void recordsAreTheHistogramCountsAndTheCounterTotals() {
        WorkloadMetrics metrics = WorkloadMetrics.create("node");
        var histogram = metrics.histogram("pillar_node_command_seconds", "commands", "command", "outcome");
        histogram.labelValues("mount", "ok").observe(0.01);
        histogram.labelValues("mount", "ok").observe(0.02);
        histogram.labelValues("nvme connect", "failed").observe(3);
        metrics.counter("pillar_node_corrupted_mounts", "found").inc(4);
        metrics.gauge("pillar_node_stage_records", "records").set(17);

        assertThat(MetricsAttribution.records(metrics.scrape())).isEqualTo(3 + 4);
    }
}
