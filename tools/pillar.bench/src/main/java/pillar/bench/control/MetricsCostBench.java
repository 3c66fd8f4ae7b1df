package pillar.bench.control;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import pillar.bench.Report;
import pillar.bench.Table;
import pillar.bench.proc.Launches;
import pillar.launch.MetricsScrape;

/**
 * Group 6, what metrics cost: clusters of group 1 side by side, one serving metrics (and scraped
 * by this JVM every {@value #SCRAPE_SECONDS} s, three times as often as the chart's ServiceMonitor
 * asks), one with {@code metrics.enabled=false}, and a second one serving metrics, unscraped, whose
 * difference from the first is the comparison's noise floor; lifecycles at 16 in flight run on each in turn,
 * in rounds, so both see the same machine. Per workload: CPU time per lifecycle on each and the
 * ratio; what one scrape costs (CPU of {@value #SCRAPES} scrapes in a row, idle); the live heap and
 * the RSS after a full GC (the workloads' serial GC then gives back what the garbage of the last round
 * had grown the heap to, which otherwise moves the RSS by more than the metrics hold, either way); and the CPU attributed bottom-up ({@link MetricsAttribution}). Targets: metrics cost under 3 MiB of RSS per workload
 * and under 2 % of CPU per lifecycle.
 */
public final class MetricsCostBench {
    private static final int IN_FLIGHT = 16;
    private static final Duration SETTLE = Duration.ofSeconds(8);
    /** Longer than the workloads' native-heap trim interval (2 s), so freed memory has left the RSS. */
    private static final Duration AFTER_GC = Duration.ofSeconds(4);
    private static final String[] WORKLOADS = {"controller", "agent", "node"};
    static final int SCRAPE_SECONDS = 10;
    static final int SCRAPES = 50;

    private MetricsCostBench() {
    }

    public static void run(Launches launches, Path work, Path logs, int rounds, int lifecycles, Report report)
            throws InterruptedException {
        try (Cluster on = new Cluster(launches, work.resolve("on"), logs.resolve("on"), true);
             Cluster again = new Cluster(launches, work.resolve("again"), logs.resolve("again"), true);
             Cluster off = new Cluster(launches, work.resolve("off"), logs.resolve("off"), false)) {
            Load.run(on, "warm", IN_FLIGHT, lifecycles);
            Load.run(again, "warm", IN_FLIGHT, lifecycles);
            Load.run(off, "warm", IN_FLIGHT, lifecycles);
            Map<String, Long> cpuOn = new LinkedHashMap<>();
            Map<String, Long> cpuAgain = new LinkedHashMap<>();
            Map<String, Long> cpuOff = new LinkedHashMap<>();
            AtomicBoolean scraping = new AtomicBoolean(true);
            AtomicLong scrapes = new AtomicLong();
            Thread scraper = Thread.ofPlatform().name("bench-scraper").start(() -> scrape(on, scraping, scrapes));
            try {
                List<Runnable> turns = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    String round = "r" + r;
                    turns.clear();
                    turns.add(() -> add(cpuOn, Load.run(on, round, IN_FLIGHT, lifecycles).cpuNanos()));
                    turns.add(() -> add(cpuOff, Load.run(off, round, IN_FLIGHT, lifecycles).cpuNanos()));
                    turns.add(() -> add(cpuAgain, Load.run(again, round, IN_FLIGHT, lifecycles).cpuNanos()));
                    Collections.rotate(turns, -r); // each cluster goes first, second and third in turn
                    turns.forEach(Runnable::run);
                }
            } finally {
                scraping.set(false);
                scraper.join();
            }
            Thread.sleep(SETTLE);
            Map<String, Long> records = new LinkedHashMap<>();
            on.healthPorts().forEach((w, port) -> records.put(w, MetricsAttribution.records(scrapeText(w, port))));
            Map<String, Double> scrapeMillis = scrapeCost(on);
            double nanosPerRecord = MetricsAttribution.nanosPerRecord();
            Map<String, Double> heapOnMiB = new LinkedHashMap<>();
            Map<String, Double> heapOffMiB = new LinkedHashMap<>();
            for (String w : WORKLOADS) { // a full GC each, which shrinks the heap to its live size's share
                heapOnMiB.put(w, on.daemons().get(w).liveHeapBytes() / 1048576.0);
                heapOffMiB.put(w, off.daemons().get(w).liveHeapBytes() / 1048576.0);
                again.daemons().get(w).liveHeapBytes();
            }
            Thread.sleep(AFTER_GC);
            long total = (long) rounds * lifecycles;
            long onLifecycles = total + lifecycles; // the warm-up's too: the records count from the start
            Table table = new Table("workload", "CPU ms/lifecycle: metrics on", "off", "on vs off",
                    "noise: a 2nd 'on' vs 'on'", "CPU ms per scrape", "RSS MiB after a full GC: on", "off", "on - off MiB", "noise: 2nd 'on' - 'on' MiB",
                    "live heap MiB: on", "off", "records/lifecycle", "attributed CPU");
            double worstCpu = 0;
            double worstRss = 0;
            double worstAttributed = 0;
            for (String w : WORKLOADS) {
                double on1 = cpuOn.get(w) / 1e6 / total;
                double off1 = cpuOff.get(w) / 1e6 / total;
                double again1 = cpuAgain.get(w) / 1e6 / total;
                double rssOn = on.daemons().get(w).rssKib() / 1024.0;
                double rssOff = off.daemons().get(w).rssKib() / 1024.0;
                double rssAgain = again.daemons().get(w).rssKib() / 1024.0;
                double heapOn = heapOnMiB.get(w);
                double heapOff = heapOffMiB.get(w);
                double perLifecycle = (double) records.get(w) / onLifecycles;
                double attributedMs = perLifecycle * nanosPerRecord / 1e6 + scrapeMillis.get(w) * scrapes.get() / total;
                worstAttributed = Math.max(worstAttributed, attributedMs / off1);
                worstCpu = Math.max(worstCpu, on1 / off1 - 1);
                worstRss = Math.max(worstRss, rssOn - rssOff);
                table.row(w, fmt(on1), fmt(off1), String.format(Locale.ROOT, "%+.1f %%", (on1 / off1 - 1) * 100),
                        String.format(Locale.ROOT, "%+.1f %%", (again1 / on1 - 1) * 100), String.format(Locale.ROOT, "%.2f", scrapeMillis.get(w)), fmt(rssOn), fmt(rssOff),
                        String.format(Locale.ROOT, "%+.1f", rssOn - rssOff), String.format(Locale.ROOT, "%+.1f", rssAgain - rssOn), fmt(heapOn), fmt(heapOff), fmt(perLifecycle),
                        String.format(Locale.ROOT, "%.3f ms (%.2f %%)", attributedMs, attributedMs / off1 * 100));
            }
            report.text(rounds + " rounds of " + lifecycles + " lifecycles at " + IN_FLIGHT + " in flight on each cluster, in"
                    + " turn (on, off, and a second cluster with metrics on, unscraped, whose difference from the first is"
                    + " the noise floor of the comparison); the metrics cluster scraped " + scrapes.get() + " times meanwhile (its three workloads every "
                    + SCRAPE_SECONDS + " s). CPU per scrape: " + SCRAPES + " scrapes in a row of each workload, idle."
                    + " The order of the three turns rotates each round. Attributed CPU, counted bottom-up: the records"
                    + " (observations and increments) each workload's /metrics shows per lifecycle times "
                    + String.format(Locale.ROOT, "%.0f", nanosPerRecord) + " ns per record (measured in this JVM:"
                    + " clock reads, label lookup, observation), plus its scrapes' CPU over the lifecycles; a model"
                    + " without cache effects, beside the comparison, never instead of it.");
            report.table("Metrics on and off, side by side", table);
            report.target("metrics cost under 2 % of CPU per lifecycle (worst workload)", worstCpu < 0.02,
                    String.format(Locale.ROOT, "%+.1f %%", worstCpu * 100));
            report.text(String.format(Locale.ROOT, "Attributed CPU (worst workload): %.2f %% of a lifecycle; the comparison"
                    + " resolves the cost only where its noise floor is below the difference.", worstAttributed * 100));
            report.target("metrics cost under 3 MiB of RSS per workload (worst)", worstRss < 3,
                    String.format(Locale.ROOT, "%+.1f MiB", worstRss));
            report.endTargets();
        }
    }

    /** Reads every workload's /metrics every {@value #SCRAPE_SECONDS} s until told to stop; a failed scrape fails the run. */
    private static void scrape(Cluster cluster, AtomicBoolean going, AtomicLong scrapes) {
        long next = System.nanoTime();
        while (going.get()) {
            if (System.nanoTime() - next >= 0) {
                cluster.healthPorts().forEach((w, port) -> scrapeText(w, port));
                scrapes.incrementAndGet();
                next += SCRAPE_SECONDS * 1_000_000_000L;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Each workload's CPU milliseconds per scrape, over {@value #SCRAPES} scrapes in a row. */
    private static Map<String, Double> scrapeCost(Cluster cluster) {
        Map<String, Double> millis = new LinkedHashMap<>();
        cluster.healthPorts().forEach((w, port) -> {
            long before = cluster.daemons().get(w).cpuNanos();
            for (int i = 0; i < SCRAPES; i++) {
                scrapeText(w, port);
            }
            millis.put(w, (cluster.daemons().get(w).cpuNanos() - before) / 1e6 / SCRAPES);
        });
        return millis;
    }

    private static String scrapeText(String workload, int port) {
        try {
            return MetricsScrape.text(MetricsScrape.uri(port));
        } catch (IOException e) {
            throw new IllegalStateException(workload + "'s metrics do not answer: " + e.getMessage(), e);
        }
    }

    private static void add(Map<String, Long> sums, Map<String, Long> more) {
        more.forEach((k, v) -> sums.merge(k, v, Long::sum));
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}
