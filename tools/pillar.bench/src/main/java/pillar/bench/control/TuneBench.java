package pillar.bench.control;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import pillar.bench.Report;
import pillar.bench.Table;
import pillar.bench.proc.JvmFlags;
import pillar.bench.proc.Launches;
import pillar.bench.proc.Layout;
import pillar.bench.stats.Summary;

/**
 * The JVM settings compared (dev/bench --tune): for each, the three real mains started from their
 * module paths (launch to ready, idle RSS), then a short control-plane run at 16 in flight (lifecycle
 * p50 and p99, throughput, CPU time per lifecycle in the three workload JVMs).
 */
public final class TuneBench {
    /** The settings compared by default: the daemon settings, and each changed in one respect. */
    public static final Map<String, List<String>> VARIANTS = variants();

    private TuneBench() {
    }

    private static Map<String, List<String>> variants() {
        Map<String, List<String>> v = new LinkedHashMap<>();
        v.put("JVM defaults (G1, tiered C1+C2, heap 1/4 of RAM)", List.of());
        v.put("daemon (the default of the bench)", JvmFlags.DAEMON);
        List<String> tiered = new ArrayList<>(JvmFlags.DAEMON);
        tiered.removeAll(List.of("-XX:TieredStopAtLevel=1", "-XX:CICompilerCount=1"));
        v.put("daemon, C2 too (tiered)", tiered);
        List<String> compact = new ArrayList<>(JvmFlags.DAEMON);
        compact.add("-XX:+UseCompactObjectHeaders");
        v.put("daemon + compact object headers", compact);
        List<String> loose = new ArrayList<>(JvmFlags.DAEMON);
        loose.removeAll(List.of("-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30", "-XX:-ShrinkHeapInSteps"));
        v.put("daemon, heap shrinking at its defaults (free 40-70 %, in steps)", loose);
        return v;
    }

    public static void run(Layout layout, Map<String, List<String>> variants, Path work, Path logs, int lifecycles, Report report) {
        Table table = new Table("settings", "ready ms: controller", "agent", "node", "idle RSS MiB: controller", "agent", "node",
                "16 in flight: p50 ms", "p99 ms", "lifecycles/s", "CPU ms/lifecycle: controller", "agent", "node");
        int n = 0;
        for (Map.Entry<String, List<String>> variant : variants.entrySet()) {
            Launches how = new Launches(layout, variant.getValue(), false);
            Path dir = work.resolve("tune-" + n);
            try (Cluster cluster = new Cluster(how, dir, logs.resolve("tune-" + n++))) {
                List<Object> row = new ArrayList<>(List.of(variant.getKey()));
                List<FootprintBench.Launched> launched = new ArrayList<>();
                for (String w : FootprintBench.WORKLOADS) {
                    launched.add(FootprintBench.launch(how, w, List.of(), dir.resolve("launches"), dir.resolve("kubeconfig"), 1));
                }
                launched.forEach(l -> row.add(l.median()));
                launched.forEach(l -> row.add(String.format(Locale.ROOT, "%.1f", l.idleRssKib() / 1024.0)));
                Load.run(cluster, "warm", 16, Math.max(50, lifecycles / 2));
                Load.Result r = Load.run(cluster, "tune", 16, lifecycles);
                Summary s = r.lifecycle().summary();
                row.addAll(List.of(Summary.millis(s.p50()), Summary.millis(s.p99()), String.format(Locale.ROOT, "%.1f", r.perSecond())));
                for (String w : FootprintBench.WORKLOADS) {
                    row.add(Summary.millis(r.cpuNanos().get(w) / r.lifecycles()));
                }
                table.row(row.toArray());
            }
        }
        report.table("JVM settings compared (" + lifecycles + " lifecycles at 16 in flight after a warm-up; one launch each)", table);
        StringBuilder flags = new StringBuilder();
        variants.forEach((name, f) -> flags.append("- ").append(name).append(": `").append(f.isEmpty() ? "(none)" : String.join(" ", f))
                .append("`\n"));
        report.text(flags.toString().strip());
    }
}
