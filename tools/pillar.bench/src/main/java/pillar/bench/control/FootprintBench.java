package pillar.bench.control;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import pillar.bench.Report;
import pillar.bench.Table;
import pillar.bench.proc.Daemon;
import pillar.bench.proc.Launches;
import pillar.bench.proc.Layout;

/**
 * Group 3, footprint per workload: size on disk of its runtime and image (when dev/bundle built
 * them), launch to ready and idle RSS of the real main as deployed, and memory with 100 and 1,000
 * volumes attached (created, published, staged and published to a pod) in the benchmark's cluster.
 * Targets: idle RSS at most 64 MiB and launch to ready at most 0.5 s; memory growth under 8 KiB
 * per volume.
 */
public final class FootprintBench {
    static final String[] WORKLOADS = {"controller", "agent", "node"};
    /**
     * Idle: past the JVM's periodic clean-ups, which give back the memory of start-up (the arena chunk
     * pool is cleaned every 5 s, the native heap trimmed every 2 s: the agent drops from 75 to 69 MiB
     * about 6 s after start).
     */
    private static final Duration SETTLE = Duration.ofSeconds(8);

    private FootprintBench() {
    }

    /** What one way of starting a workload measured. */
    record Launched(List<Long> readyMillis, long idleRssKib, long liveHeapBytes) {
        long median() {
            return readyMillis.stream().sorted().toList().get(readyMillis.size() / 2);
        }
    }

    /**
     * Launch to ready (median of {@code launches}) and idle RSS of each workload's real main: from its
     * jlink runtime when built, else from its module path, without and with an AOT cache (JDK 25)
     * that a training run to readiness wrote.
     */
    public static void launches(Layout layout, Launches how, Path kubeconfig, Path work, Path images, int launches,
                                Report report) {
        Table table = new Table("workload", "started as", "runtime on disk", "image", "launch to ready ms (each)",
                "median ms", "idle RSS MiB", "live heap MiB");
        Map<String, Launched> best = new LinkedHashMap<>();
        for (String w : WORKLOADS) {
            List<String> ways = how.usesRuntime(w) ? List.of("jlink runtime") : List.of("module path", "module path + AOT cache");
            for (String way : ways) {
                List<String> extra = List.of();
                if (way.endsWith("AOT cache")) {
                    Path cache = work.resolve(w + ".aot");
                    train(how, w, cache, work, kubeconfig);
                    extra = List.of("-XX:AOTCache=" + cache);
                }
                Launched l = launch(how, w, extra, work, kubeconfig, launches);
                best.merge(w, l, (a, b) -> b.median() < a.median() ? b : a);
                table.row("pillar-" + w, way, layout.runtime(w).map(FootprintBench::sizeMib).orElse("not built"),
                        imageMib(layout, images, w),
                        l.readyMillis().stream().map(String::valueOf).reduce((a, b) -> a + ", " + b).orElse(""), l.median(),
                        String.format(Locale.ROOT, "%.1f", l.idleRssKib() / 1024.0),
                        String.format(Locale.ROOT, "%.1f", l.liveHeapBytes() / 1048576.0));
            }
        }
        report.table("Footprint of each workload's real main (idle RSS " + SETTLE.toSeconds() + " s after ready; live heap after a"
                + " full GC); JVM flags: " + (how.usesRuntime("agent") ? "the runtime's conf/jvm.options" : String.join(" ", how.flags())),
                table);
        StringBuilder figures = new StringBuilder();
        best.forEach((w, l) -> figures.append(String.format(Locale.ROOT, "%s %d ms / %.1f MiB; ", w, l.median(), l.idleRssKib() / 1024.0)));
        report.target("launch to ready <= 0.5 s (best way of starting)", best.values().stream().allMatch(l -> l.median() <= 500),
                figures.toString().strip());
        report.target("idle RSS <= 64 MiB", best.values().stream().allMatch(l -> l.idleRssKib() <= 64 * 1024), figures.toString().strip());
        report.endTargets();
    }

    static Launched launch(Launches how, String w, List<String> extra, Path work, Path kubeconfig, int launches) {
        List<Long> times = new ArrayList<>();
        long rss = 0;
        long heap = 0;
        for (int i = 0; i < launches; i++) {
            int health = Launches.freePort();
            Path dir = work.resolve("launch-" + w + "-" + System.nanoTime());
            try (Daemon d = Daemon.start(w, how.real(w, extra, args(w, dir, health, kubeconfig)), dir.resolve(w + ".log"))) {
                times.add(d.awaitReady(health, Duration.ofMinutes(3)).toMillis());
                Cluster.pause(SETTLE.toMillis());
                rss = d.rssKib();
                heap = d.liveHeapBytes();
            }
        }
        return new Launched(times, rss, heap);
    }

    /** A training run: started to readiness with -XX:AOTCacheOutput and stopped; the JVM writes the cache as it exits. */
    static void train(Launches how, String w, Path cache, Path work, Path kubeconfig) {
        int health = Launches.freePort();
        Path dir = work.resolve("train-" + w);
        Daemon d = Daemon.start(w, how.real(w, List.of("-XX:AOTCacheOutput=" + cache), args(w, dir, health, kubeconfig)),
                dir.resolve(w + ".log"));
        d.awaitReady(health, Duration.ofMinutes(3));
        d.stop(Duration.ofMinutes(10));
        if (!Files.isRegularFile(cache)) {
            throw new IllegalStateException("the training run of " + w + " wrote no AOT cache; see " + d.log());
        }
    }

    /** Memory of each JVM of the cluster with 0, then {@code counts} volumes attached; returns the volumes attached. */
    public static int withVolumes(Cluster cluster, int[] counts, Report report) {
        Map<String, long[]> rss = new LinkedHashMap<>();
        Map<String, long[]> heap = new LinkedHashMap<>();
        cluster.daemons().keySet().forEach(n -> {
            rss.put(n, new long[counts.length + 1]);
            heap.put(n, new long[counts.length + 1]);
        });
        // one lifecycle first: every class of the CSI path loaded, every code path compiled once
        Load.run(cluster, "first", 1, 1);
        measure(cluster, rss, heap, 0);
        int attached = 0;
        for (int i = 0; i < counts.length; i++) {
            attach(cluster, attached, counts[i], 16);
            attached = counts[i];
            measure(cluster, rss, heap, i + 1);
        }
        List<String> headers = new ArrayList<>(List.of("JVM", "RSS MiB: 0 volumes"));
        for (int c : counts) {
            headers.add(c + " volumes");
        }
        headers.addAll(List.of("live heap MiB: 0", counts[0] + "", counts[counts.length - 1] + "",
                "growth per volume (" + counts[0] + " to " + counts[counts.length - 1] + "): RSS KiB", "live heap KiB"));
        Table table = new Table(headers.toArray(String[]::new));
        boolean met = true;
        StringBuilder figures = new StringBuilder();
        int span = counts[counts.length - 1] - counts[0];
        for (String n : rss.keySet()) {
            long[] r = rss.get(n);
            long[] h = heap.get(n);
            List<Object> row = new ArrayList<>(List.of(n));
            for (long v : r) {
                row.add(String.format(Locale.ROOT, "%.1f", v / 1024.0));
            }
            row.add(String.format(Locale.ROOT, "%.1f", h[0] / 1048576.0));
            row.add(String.format(Locale.ROOT, "%.1f", h[1] / 1048576.0));
            row.add(String.format(Locale.ROOT, "%.1f", h[counts.length] / 1048576.0));
            double rssPerVolume = (double) (r[counts.length] - r[1]) / span;
            double heapPerVolume = (h[counts.length] - h[1]) / 1024.0 / span;
            row.add(String.format(Locale.ROOT, "%.2f", rssPerVolume));
            row.add(String.format(Locale.ROOT, "%.2f", heapPerVolume));
            table.row(row.toArray());
            if (!n.startsWith("kube-api")) {
                met &= rssPerVolume < 8 && heapPerVolume < 8;
                figures.append(String.format(Locale.ROOT, "%s %.2f KiB RSS / %.2f KiB heap; ", n, rssPerVolume, heapPerVolume));
            }
        }
        report.table("Memory with volumes attached (RSS after a full GC; the agent's and the node's JVMs include their fakes'"
                + " state: the fake configfs tree and its journal, the fake mount table and sysfs bookkeeping)", table);
        report.target("memory growth < 8 KiB per volume in every workload", met, figures.toString().strip());
        report.endTargets();
        return attached;
    }

    /** Attaches volumes {@code from} (inclusive) to {@code to} (exclusive), {@code inFlight} at a time. */
    static void attach(Cluster cluster, int from, int to, int inFlight) {
        AtomicInteger next = new AtomicInteger(from);
        try (ExecutorService callers = Executors.newFixedThreadPool(inFlight)) {
            List<Future<?>> workers = new ArrayList<>();
            for (int w = 0; w < inFlight; w++) {
                workers.add(callers.submit(() -> {
                    for (int i = next.getAndIncrement(); i < to; i = next.getAndIncrement()) {
                        new Lifecycle(cluster, String.format(Locale.ROOT, "vol-%05d", i), (call, nanos) -> { }).attach();
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                try {
                    worker.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    next.set(to);
                    throw new IllegalStateException("attaching volumes failed: " + e.getCause(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    private static void measure(Cluster cluster, Map<String, long[]> rss, Map<String, long[]> heap, int index) {
        for (Map.Entry<String, Daemon> d : cluster.daemons().entrySet()) {
            heap.get(d.getKey())[index] = d.getValue().liveHeapBytes(); // a full GC first
            rss.get(d.getKey())[index] = d.getValue().rssKib();
        }
    }

    /** The real main's arguments for a run under {@code dir}. */
    static List<String> args(String workload, Path dir, int health, Path kubeconfig) {
        try {
            Files.createDirectories(dir);
            return switch (workload) {
                case "agent" -> {
                    // no configfs here: a directory with nvmet's three folders stands in (as in dev/sandbox)
                    for (String d : new String[] {"hosts", "ports", "subsystems"}) {
                        Files.createDirectories(dir.resolve("configfs/nvmet").resolve(d));
                    }
                    Path config = dir.resolve("agent.yaml");
                    Files.writeString(config, """
                            agent:
                              listen: {host: 127.0.0.1, port: %d}
                              state-dir: %s
                              configfs-root: %s
                              backends:
                                - {name: bench-thin, type: lvm-thin, volume-group: bench, thin-pool: pool0}
                            health: {host: 127.0.0.1, port: %d}
                            """.formatted(Launches.freePort(), dir.resolve("state"), dir.resolve("configfs"), health));
                    yield List.of("--config", config.toString());
                }
                case "node" -> List.of("--csi.socket=" + dir.resolve("csi/csi.sock"), "--health.host=127.0.0.1", "--health.port=" + health,
                        "--node.id=bench-worker", "--node.state-dir=" + dir.resolve("state"), "--node.kubelet-dir=" + dir.resolve("kubelet"),
                        "--node.hostnqn-file=" + dir.resolve("hostnqn"));
                case "controller" -> List.of("--csi.socket=" + dir.resolve("csi/csi.sock"), "--health.host=127.0.0.1",
                        "--health.port=" + health, "--kubernetes.kubeconfig=" + kubeconfig, "--controller.namespace=pillar-system");
                default -> throw new IllegalArgumentException(workload);
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String imageMib(Layout layout, Path images, String workload) {
        OptionalLong bytes = layout.imageBytes(images, workload);
        return bytes.isPresent() ? String.format(Locale.ROOT, "%.1f MiB", bytes.getAsLong() / 1048576.0) : "not built";
    }

    static String sizeMib(Path path) {
        try (Stream<Path> files = Files.walk(path)) {
            long bytes = files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
            return String.format(Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
