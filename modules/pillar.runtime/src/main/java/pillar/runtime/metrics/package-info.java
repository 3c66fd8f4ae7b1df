/**
 * Each workload's Prometheus meters, served as text on its health port at {@code /metrics}: the
 * registry and its naming rules ({@link pillar.runtime.metrics.WorkloadMetrics}), the timing of every
 * gRPC call ({@link pillar.runtime.metrics.OperationTimer}) and of every host command
 * ({@link pillar.runtime.metrics.TimedProcessRunner}). Labels never carry unbounded values: no volume,
 * snapshot or node IDs.
 */
package pillar.runtime.metrics;
