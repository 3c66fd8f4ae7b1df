package pillar.bench.control;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.LongSummaryStatistics;
import java.util.Map;

import pillar.bench.Report;
import pillar.bench.Table;
import pillar.bench.stats.Summary;

/**
 * Group 1, control-plane cost: full lifecycles through the real controller, agent and node (each
 * its own JVM, on fakes of the kernel and tools) at 1, 16 and 64 volumes in flight, after a warm-up;
 * per call and per lifecycle p50 and p99, lifecycles per second, and CPU time per lifecycle in each
 * JVM, with the requests the emulated Kubernetes API served (per lifecycle, and per call of a
 * lifecycle run alone). Targets: a lifecycle at most 20 ms p99 at 16 in flight; no call at 64 in
 * flight slower than 4 times its time at 1.
 */
public final class ControlPlaneBench {
    static final int[] LEVELS = {1, 16, 64};
    private static final int COUNTED = 5;

    private ControlPlaneBench() {
    }

    /** {@code lifecycles[i]} lifecycles at {@code LEVELS[i]} in flight, after {@code warmUp} at 16. */
    public static void run(Cluster cluster, int warmUp, int[] lifecycles, Report report) {
        Load.run(cluster, "warm", 16, warmUp);
        List<Load.Result> results = new ArrayList<>();
        for (int i = 0; i < LEVELS.length; i++) {
            results.add(Load.run(cluster, "c" + LEVELS[i], LEVELS[i], lifecycles[i]));
        }

        Table lifecycle = new Table("in flight", "lifecycles", "p50 ms", "p99 ms", "max ms", "lifecycles/s",
                "CPU ms/lifecycle: controller", "agent", "node", "API emulator", "all", "API requests/lifecycle",
                "API serving ms/lifecycle");
        for (Load.Result r : results) {
            Summary s = r.lifecycle().summary();
            List<Object> row = new ArrayList<>(List.of(r.inFlight(), r.lifecycles(), Summary.millis(s.p50()), Summary.millis(s.p99()),
                    Summary.millis(s.max()), String.format(Locale.ROOT, "%.1f", r.perSecond())));
            long all = 0;
            for (long cpu : r.cpuNanos().values()) {
                row.add(Summary.millis(cpu / r.lifecycles()));
                all += cpu;
            }
            row.add(Summary.millis(all / r.lifecycles()));
            row.add(String.format(Locale.ROOT, "%.1f", (double) r.api().requests() / r.lifecycles()));
            row.add(Summary.millis(r.api().nanos() / r.lifecycles()));
            lifecycle.row(row.toArray());
        }
        report.table("Full lifecycle (create, controller publish, stage, publish, unpublish, unstage, controller unpublish, delete)",
                lifecycle);

        Table calls = new Table("call", "1: p50 ms", "1: p99 ms", "16: p50 ms", "16: p99 ms", "64: p50 ms", "64: p99 ms",
                "64 vs 1: p50", "64 vs 1: p99");
        String worst = "";
        double worstRatio = 0;
        for (String call : Lifecycle.CALLS) {
            List<Object> row = new ArrayList<>(List.of(call));
            for (Load.Result r : results) {
                Summary s = r.calls().get(call).summary();
                row.add(Summary.millis(s.p50()));
                row.add(Summary.millis(s.p99()));
            }
            Summary one = results.getFirst().calls().get(call).summary();
            Summary many = results.getLast().calls().get(call).summary();
            double p50 = (double) many.p50() / one.p50();
            double p99 = (double) many.p99() / one.p99();
            row.add(String.format(Locale.ROOT, "%.1fx", p50));
            row.add(String.format(Locale.ROOT, "%.1fx", p99));
            calls.row(row.toArray());
            if (Math.max(p50, p99) > worstRatio) {
                worstRatio = Math.max(p50, p99);
                worst = call;
            }
        }
        report.table("Per CSI call, as the caller sees it", calls);
        report.table("API requests per CSI call (one volume at a time, " + COUNTED + " lifecycles; min and max; the emulator's"
                + " requests include the controller's background ones, such as Lease renewals)", requestsPerCall(cluster));

        long p99At16 = results.get(1).lifecycle().summary().p99();
        report.target("full lifecycle p99 at 16 in flight <= 20 ms", p99At16 <= 20_000_000L,
                Summary.millis(p99At16) + " ms");
        report.target("no call at 64 in flight slower than 4x its time at 1", worstRatio <= 4.0,
                String.format(Locale.ROOT, "worst: %s %.1fx", worst, worstRatio));
        report.endTargets();
    }

    /** The requests the emulated API served during each call of a lifecycle run alone (read between the calls). */
    private static Table requestsPerCall(Cluster cluster) {
        Map<String, LongSummaryStatistics> perCall = new LinkedHashMap<>();
        Lifecycle.CALLS.forEach(c -> perCall.put(c, new LongSummaryStatistics()));
        for (int i = 0; i < COUNTED; i++) {
            long[] last = {cluster.apiServed().requests()};
            Lifecycle counted = new Lifecycle(cluster, "count-" + i, (call, nanos) -> {
                long now = cluster.apiServed().requests();
                perCall.get(call).accept(now - last[0]);
                last[0] = now;
            });
            counted.attach();
            counted.detach();
        }
        Table table = new Table("call", "API requests: min", "max");
        perCall.forEach((call, n) -> table.row(call, n.getMin(), n.getMax()));
        return table;
    }
}
