package pillar.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import pillar.bench.control.Cluster;
import pillar.bench.control.ControlPlaneBench;
import pillar.bench.control.FootprintBench;
import pillar.bench.control.ListBench;
import pillar.bench.control.MetricsCostBench;
import pillar.bench.control.ScaleBench;
import pillar.bench.control.TuneBench;
import pillar.bench.proc.JvmFlags;
import pillar.bench.proc.Launches;
import pillar.bench.proc.Layout;

/**
 * The host groups of dev/bench (a developer tool on the class path, never shipped): 1 control-plane
 * cost, 3 footprint, 4 scale, 5 ListVolumes at 10,000 volumes, 6 what metrics cost. Each workload runs in its own JVM; this one plays the API server's
 * clients (kubelet, the CSI sidecars) and measures.
 *
 * <pre>
 * BenchMain --root=CHECKOUT --out=FILE [--groups=1,3,4,5,6 | --tune] [--quick] [--jvm-flags="..."] [--images=DIR] [--reproduce=CMD]
 * </pre>
 * Writes the groups' Markdown to FILE and prints it as it goes. State and sockets go to a directory
 * in /dev/shm (tmpfs), removed at the end; the workloads' logs to CHECKOUT/target/bench/logs.
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] arguments) throws IOException, InterruptedException {
        Args args = Args.parse(arguments);
        Layout layout = new Layout(args.path("root"));
        boolean quick = args.flag("quick");
        Set<String> groups = Set.of(args.get("groups", "1,3,4").split(","));
        List<String> flags = args.get("jvm-flags", "").isBlank() ? JvmFlags.DAEMON : JvmFlags.parse(args.get("jvm-flags"));
        Launches launches = new Launches(layout, flags);
        Path images = Path.of(args.get("images", layout.root().resolve("target/bundle").toString()));
        String reproduce = args.get("reproduce", "dev/bench" + (quick ? " --quick" : ""));
        Path logs = layout.root().resolve("target/bench/logs");
        Path work = Files.createTempDirectory(Path.of("/dev/shm"), "pillar-bench-");
        Report report = new Report(System.out);
        // interrupted (Ctrl-C, SIGTERM): the workload JVMs go too
        Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessHandle.current().descendants().forEach(ProcessHandle::destroy)));
        try {
            if (args.flag("tune")) {
                report.heading("JVM settings for the workloads (`" + reproduce + " --tune`)");
                TuneBench.run(layout, TuneBench.VARIANTS, work, logs, quick ? 100 : 400, report);
            }
            if (!args.flag("tune") && groups.contains("1")) {
                report.heading("1. Control-plane cost on the host (`" + reproduce + " --group 1`)");
                boolean runtime = launches.usesRuntime("controller");
                report.text("The real controller (" + (runtime ? "its jlink runtime, with its own conf/jvm.options"
                        : "its module path") + "), agent and node, each its own JVM, over real gRPC (CSI on UNIX sockets,"
                        + " the agent API on TCP) against the emulated Kubernetes API (fabric8's mock server, CRUD mode, also"
                        + " its own JVM). The agent works on the fake configfs tree of its tests (nvmet of kernel 6.1, in"
                        + " memory) and a backend that does no I/O; the node on its fake initiator, mounter and filesystem"
                        + " tools; state directories on tmpfs. This JVM plays the sidecars and kubelet. "
                        + (runtime ? "The agent's and node's JVM flags" : "Workload JVM flags") + ": `" + String.join(" ", flags)
                        + "`. " + (quick ? "Quick run: few lifecycles, rough figures."
                        : "A warm-up of 300 lifecycles at 16 in flight comes first."));
                try (Cluster cluster = new Cluster(launches, work.resolve("g1"), logs.resolve("g1"))) {
                    ControlPlaneBench.run(cluster, quick ? 40 : 300, quick ? new int[] {20, 160, 256} : new int[] {200, 800, 1280},
                            report);
                }
            }
            if (!args.flag("tune") && (groups.contains("3") || groups.contains("4"))) {
                try (Cluster cluster = new Cluster(launches, work.resolve("g34"), logs.resolve("g34"))) {
                    int attached = 0;
                    if (groups.contains("3")) {
                        report.heading("3. Footprint per workload (`" + reproduce + " --group 3`)");
                        FootprintBench.launches(layout, launches, work.resolve("g34/kubeconfig"), work.resolve("g3"), images,
                                quick ? 1 : 3, report);
                        attached = FootprintBench.withVolumes(cluster, new int[] {100, 1000}, report);
                    }
                    if (groups.contains("4")) {
                        if (attached == 0) {
                            attached = FootprintBench.withVolumes(cluster, new int[] {100, 1000}, new Report(System.out));
                        }
                        report.heading("4. Scale (`" + reproduce + " --group 4`)");
                        ScaleBench.run(cluster, attached, work.resolve("g4"), quick, report);
                    }
                }
            }
            if (!args.flag("tune") && groups.contains("5")) {
                report.heading("5. ListVolumes at scale (`" + reproduce + " --group 5`)");
                try (Cluster cluster = new Cluster(launches, work.resolve("g5"), logs.resolve("g5"))) {
                    ListBench.run(cluster, quick ? 2_000 : 10_000, quick ? 2 : 5, report);
                }
            }
            if (!args.flag("tune") && groups.contains("6")) {
                report.heading("6. What metrics cost (`" + reproduce + " --group 6`)");
                MetricsCostBench.run(launches, work.resolve("g6"), logs.resolve("g6"), quick ? 2 : 4, quick ? 100 : 400, report);
            }
            delete(work);
        } catch (RuntimeException | Error e) {
            System.err.println("bench: failed; the workloads' state and the launches' logs are kept in " + work);
            throw e;
        } finally {
            Files.writeString(args.path("out"), report.markdown());
        }
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.deleteIfExists(p);
            }
        }
    }
}
