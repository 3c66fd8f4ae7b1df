package pillar.bench.control;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.bench.Report;
import pillar.bench.Table;
import pillar.bench.proc.Daemon;
import pillar.controller.crd.PillarVolumeState;

/**
 * Group 4, scale, on the cluster left by {@link FootprintBench#withVolumes} ({@code volumes} attached):
 * the agent stopped and started again on its state directory with an empty configfs tree (what a
 * storage node's reboot leaves), which it must fill from its export records before it is ready; and
 * the controller stopped and started again with that many PillarVolumeStates in the API. Each restart
 * is measured without and with an AOT cache (what the jlink runtimes ship), trained by a separate run.
 * Targets: the agent ready within 5 s, the controller within 10 s and under 128 MiB RSS.
 */
public final class ScaleBench {
    private static final Pattern REAPPLIED = Pattern.compile("re-applied (\\d+) of (\\d+) exports in (\\d+) ms");
    private static final Pattern CHANGES = Pattern.compile(
            "fake kernel set-up (\\d+) ms \\((\\d+) volumes\\), agent start (\\d+) ms, configfs changes (\\d+)");

    private ScaleBench() {
    }

    private static List<List<String>> ways(boolean quick, Path cache) {
        List<String> aot = List.of("-XX:AOTCache=" + cache);
        return quick ? List.of(aot) : List.of(List.of(), aot);
    }

    /** {@code quick}: each restart only with the AOT cache. */
    public static void run(Cluster cluster, int volumes, Path work, boolean quick, Report report) {
        try {
            java.nio.file.Files.createDirectories(work);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Table table = new Table("restart", "with", "JVM", "launch to ready ms", "of which", "RSS MiB", "configfs changes");
        Path agentCache = work.resolve("agent-restart.aot");
        cluster.trainAgent(agentCache);
        long agentBest = Long.MAX_VALUE;
        for (List<String> flags : ways(quick, agentCache)) {
            cluster.stopAgent();
            Duration ready = cluster.startAgent(flags);
            Daemon agent = cluster.agent();
            Matcher reapplied = REAPPLIED.matcher(agent.awaitLog("re-applied", Duration.ofSeconds(30)));
            Matcher changes = CHANGES.matcher(agent.awaitLog("bench-agent: ready", Duration.ofSeconds(30)));
            if (!reapplied.find() || !changes.find()) {
                throw new IllegalStateException("the agent's log does not say what it re-applied; see " + agent.log());
            }
            int exports = Integer.parseInt(reapplied.group(2));
            if (exports != volumes || Integer.parseInt(reapplied.group(1)) != volumes) {
                throw new IllegalStateException("the agent re-applied " + reapplied.group(1) + " of " + exports + " exports, "
                        + volumes + " expected; see " + agent.log());
            }
            Cluster.pause(3000);
            int writes = Integer.parseInt(changes.group(4));
            agentBest = Math.min(agentBest, ready.toMillis());
            table.row("agent (empty configfs tree, as after a reboot)", exports + " export records", flags.isEmpty() ? "plain" : "AOT cache",
                    ready.toMillis(), "re-apply " + reapplied.group(3) + " ms (bench's fake kernel set-up " + changes.group(1) + " ms)",
                    String.format(Locale.ROOT, "%.1f", agent.rssKib() / 1024.0),
                    String.format(Locale.ROOT, "%d (%.1f per export)", writes, (double) writes / exports));
        }

        long states = cluster.client().resources(PillarVolumeState.class).list().getItems().size();
        // a jlink runtime has its own AOT cache, trained by jlink/build; from the module path, one is trained here
        boolean runtime = cluster.launches().usesRuntime("controller");
        List<List<String>> controllerWays = List.of(List.of());
        if (!runtime) {
            Path controllerCache = work.resolve("controller-restart.aot");
            cluster.trainController(controllerCache);
            controllerWays = ways(quick, controllerCache);
        }
        long controllerBest = Long.MAX_VALUE;
        long controllerRss = Long.MAX_VALUE;
        for (List<String> flags : controllerWays) {
            cluster.stopController();
            Duration ready = cluster.startController(flags);
            Daemon controller = cluster.controllerDaemon();
            // ready is true at once for a replica on standby: the 1,000 states are read only once it
            // leads (the Lease of the stopped replica may have to expire first) and its informers sync
            controller.awaitLog("informers synced", Duration.ofMinutes(2));
            Duration synced = controller.sinceLaunch();
            long atSync = controller.rssKib();
            Cluster.pause(3000);
            long settled = controller.rssKib();
            long heap = controller.liveHeapBytes();
            controllerBest = Math.min(controllerBest, synced.toMillis());
            controllerRss = Math.min(controllerRss, Math.max(atSync, settled));
            table.row("controller", states + " PillarVolumeStates",
                    runtime ? "jlink runtime (its AOT cache)" : flags.isEmpty() ? "plain" : "AOT cache", synced.toMillis(),
                    "health ready " + ready.toMillis() + " ms, then leads with its informers synced",
                    String.format(Locale.ROOT, "%.1f synced, %.1f 3 s later (live heap %.1f)", atSync / 1024.0, settled / 1024.0,
                            heap / 1048576.0), "");
        }
        // the restarted pair still serves: one more full lifecycle
        Load.run(cluster, "after-restart", 1, 1);

        report.table("Restarts at scale (each without and with an AOT cache trained by a separate run; the jlink runtime with its own)", table);
        report.target("agent with " + volumes + " exports ready <= 5 s", agentBest <= 5000, agentBest + " ms (best of the two)");
        report.target("controller with " + states + " volume states leading with informers synced <= 10 s", controllerBest <= 10_000,
                controllerBest + " ms (best of the two)");
        report.target("controller with " + states + " volume states < 128 MiB RSS", controllerRss < 128 * 1024,
                String.format(Locale.ROOT, "%.1f MiB (the lower of the two)", controllerRss / 1024.0));
        report.endTargets();
    }
}
