package pillar.bench.control;

import java.time.Duration;
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
 * the controller stopped and started again with that many PillarVolumeStates in the API. Targets:
 * the agent ready within 5 s, the controller within 10 s and under 128 MiB RSS.
 */
public final class ScaleBench {
    private static final Pattern REAPPLIED = Pattern.compile("re-applied (\\d+) of (\\d+) exports in (\\d+) ms");
    private static final Pattern CHANGES = Pattern.compile(
            "fake kernel set-up (\\d+) ms \\((\\d+) volumes\\), agent start (\\d+) ms, configfs changes (\\d+)");

    private ScaleBench() {
    }

    public static void run(Cluster cluster, int volumes, Report report) {
        cluster.stopAgent();
        Duration agentReady = cluster.startAgent();
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
        long agentRss = agent.rssKib();
        int writes = Integer.parseInt(changes.group(4));

        long states = cluster.client().resources(PillarVolumeState.class).list().getItems().size();
        cluster.stopController();
        Duration controllerReady = cluster.startController();
        Daemon controller = cluster.controllerDaemon();
        long rssAtReady = controller.rssKib();
        Cluster.pause(3000);
        long rssSettled = controller.rssKib();
        long heap = controller.liveHeapBytes();
        // the restarted pair still serves: one more full lifecycle
        Load.run(cluster, "after-restart", 1, 1);

        Table table = new Table("restart", "with", "launch to ready ms", "of which", "RSS MiB", "configfs changes");
        table.row("agent (empty configfs tree, as after a reboot)", exports + " export records", agentReady.toMillis(),
                "re-apply " + reapplied.group(3) + " ms; bench's fake kernel set-up " + changes.group(1) + " ms",
                String.format(Locale.ROOT, "%.1f", agentRss / 1024.0),
                String.format(Locale.ROOT, "%d (%.1f per export)", writes, (double) writes / exports));
        table.row("controller", states + " PillarVolumeStates", controllerReady.toMillis(), "",
                String.format(Locale.ROOT, "%.1f at ready, %.1f 3 s later (live heap %.1f)", rssAtReady / 1024.0, rssSettled / 1024.0,
                        heap / 1048576.0), "");
        report.table("Restarts at scale", table);
        report.target("agent with " + exports + " exports ready <= 5 s", agentReady.toMillis() <= 5000, agentReady.toMillis() + " ms");
        report.target("controller with " + states + " volume states ready <= 10 s", controllerReady.toMillis() <= 10_000,
                controllerReady.toMillis() + " ms");
        long maxRss = Math.max(rssAtReady, rssSettled);
        report.target("controller with " + states + " volume states < 128 MiB RSS", maxRss < 128 * 1024,
                String.format(Locale.ROOT, "%.1f MiB", maxRss / 1024.0));
        report.endTargets();
    }
}
