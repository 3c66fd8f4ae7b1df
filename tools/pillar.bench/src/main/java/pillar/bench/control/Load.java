package pillar.bench.control;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import pillar.bench.proc.Daemon;
import pillar.bench.stats.Samples;

/**
 * Full lifecycles kept {@code inFlight} at a time (that many callers, each starting the next volume's
 * lifecycle when its last one ends) until {@code total} have run: each call's time, each lifecycle's
 * time, the wall time, the CPU time every workload JVM spent meanwhile, and the requests the
 * emulated API served meanwhile (with the time it spent serving them).
 */
final class Load {
    /** What one run measured. */
    record Result(int inFlight, int lifecycles, long wallNanos, Samples lifecycle, Map<String, Samples> calls,
                  Map<String, Long> cpuNanos, Cluster.ApiServed api) {
        double perSecond() {
            return lifecycles / (wallNanos / 1e9);
        }
    }

    private Load() {
    }

    static Result run(Cluster cluster, String prefix, int inFlight, int total) {
        Map<String, Samples> calls = new ConcurrentHashMap<>();
        Lifecycle.CALLS.forEach(c -> calls.put(c, new Samples()));
        Samples lifecycles = new Samples();
        Map<String, Long> cpuBefore = cpu(cluster);
        Cluster.ApiServed apiBefore = cluster.apiServed();
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        try (ExecutorService callers = Executors.newFixedThreadPool(inFlight)) {
            Future<?>[] workers = new Future<?>[inFlight];
            for (int w = 0; w < inFlight; w++) {
                workers[w] = callers.submit(() -> {
                    for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                        long begin = System.nanoTime();
                        Lifecycle lifecycle = new Lifecycle(cluster, prefix + "-" + i, (call, nanos) -> calls.get(call).add(nanos));
                        lifecycle.attach();
                        lifecycle.detach();
                        lifecycles.add(System.nanoTime() - begin);
                    }
                    return null;
                });
            }
            for (Future<?> worker : workers) {
                try {
                    worker.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    next.set(total); // stop the others
                    throw new IllegalStateException("a lifecycle failed: " + e.getCause(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
        }
        long wall = System.nanoTime() - start;
        Map<String, Long> cpuAfter = cpu(cluster);
        Cluster.ApiServed apiAfter = cluster.apiServed();
        Map<String, Long> used = new LinkedHashMap<>();
        cpuAfter.forEach((name, nanos) -> used.put(name, nanos - cpuBefore.get(name)));
        return new Result(inFlight, total, wall, lifecycles, calls, used,
                new Cluster.ApiServed(apiAfter.requests() - apiBefore.requests(), apiAfter.nanos() - apiBefore.nanos()));
    }

    static Map<String, Long> cpu(Cluster cluster) {
        Map<String, Long> cpu = new LinkedHashMap<>();
        for (Map.Entry<String, Daemon> d : cluster.daemons().entrySet()) {
            cpu.put(d.getKey(), d.getValue().cpuNanos());
        }
        return cpu;
    }
}
