package pillar.controller.reconcile.loop;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * The reconcilers' meters, made once per workload and shared by every leadership term's loops:
 * {@code pillar_controller_reconcile_seconds{reconciler,outcome}} (each reconcile, its outcome
 * {@code done}, {@code requeue}, {@code retry}, or {@code error} when it threw),
 * {@code pillar_controller_reconcile_queue_depth{reconciler}} (each running loop's backlog, read at
 * scrape time), {@code pillar_controller_agent_reachable{agent}} (1 while a PillarAgent answers
 * its poll, else 0) and {@code pillar_controller_orphans{store,kind}} (the volumes and exports,
 * {@code kind} {@code volume} or {@code export}, of a PillarStore's backend that no PillarVolumeState
 * claims, as its last orphan check found them: the counts of its {@code OrphanVolumes} condition).
 * The reconciler label is the kind a loop reconciles; the agent and store labels a PillarAgent's or
 * PillarStore's name, sets the cluster's admin configures (never a volume's). A replica that does
 * not lead runs no loop: it reports no queue, no agent and no orphans (the histogram keeps what its
 * earlier terms recorded).
 */
public final class ReconcileMeters {
    private final Histogram seconds;
    private final Gauge agentReachable;
    private final Gauge orphans;
    private final Map<String, IntSupplier> depths = new ConcurrentHashMap<>();

    public ReconcileMeters(WorkloadMetrics metrics) {
        seconds = metrics.histogram("pillar_controller_reconcile_seconds",
                "reconciles, by reconciler and outcome (done, requeue, retry, error)", "reconciler", "outcome");
        metrics.gauge("pillar_controller_reconcile_queue_depth", "objects due for a reconcile and waiting for it",
                callback -> depths.forEach((kind, depth) -> callback.call(depth.getAsInt(), kind)), "reconciler");
        agentReachable = metrics.gauge("pillar_controller_agent_reachable",
                "1 while the PillarAgent answers the controller's poll, else 0", "agent");
        orphans = metrics.gauge("pillar_controller_orphans",
                "volumes and exports of a PillarStore's backend that no PillarVolumeState claims, by store and kind"
                        + " (volume, export)", "store", "kind");
    }

    /** Times a reconcile of a {@code kind} that ended with that result; it began at {@code startedNanos}. */
    void reconciled(String kind, Result result, long startedNanos) {
        observe(kind, result.next().name().toLowerCase(Locale.ROOT), startedNanos);
    }

    /** Times a reconcile of a {@code kind} that threw. */
    void threw(String kind, long startedNanos) {
        observe(kind, "error", startedNanos);
    }

    private void observe(String kind, String outcome, long startedNanos) {
        seconds.labelValues(kind, outcome).observe((System.nanoTime() - startedNanos) / 1e9);
    }

    /** Reports the backlog of the loop of {@code kind} from now on. */
    void queue(String kind, IntSupplier depth) {
        depths.put(kind, depth);
    }

    /** Stops reporting that backlog (its loop closed). */
    void unqueue(String kind, IntSupplier depth) {
        depths.remove(kind, depth);
    }

    /** Whether the agent of that name answered its last poll. */
    public void agentReachable(String agent, boolean reachable) {
        agentReachable.labelValues(agent).set(reachable ? 1 : 0);
    }

    /** The agent is gone: it is no longer reported. */
    public void agentGone(String agent) {
        agentReachable.remove(agent);
    }

    /** No agent is polled any more (the term ended): none is reported until the next term polls it. */
    public void agentsUnknown() {
        agentReachable.clear();
    }

    /** The last orphan check of that PillarStore found so many unclaimed volumes and exports. */
    public void orphans(String store, int volumes, int exports) {
        orphans.labelValues(store, "volume").set(volumes);
        orphans.labelValues(store, "export").set(exports);
    }

    /** The PillarStore is gone: its orphans are no longer reported. */
    public void storeGone(String store) {
        orphans.remove(store, "volume");
        orphans.remove(store, "export");
    }

    /** No store is checked any more (the term ended): none is reported until the next term checks it. */
    public void orphansUnknown() {
        orphans.clear();
    }
}
