package pillar.sandbox;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Waits for what starts slowly under emulation (each JVM takes a minute or more), printing every
 * 15 s what is still starting: no silent minute. Fails after the deadline with the log of the first
 * workload that is not ready.
 */
final class Startup {
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(15);

    private Startup() {
    }

    /**
     * Waits until {@code api} is up and every workload is ready. When the API comes up,
     * {@code thenStart} (if not null) starts one more workload that needs it, which is waited for too
     * and added to {@code processes}.
     */
    static void await(List<WorkloadProcess> processes, CompletableFuture<KubeApi> api,
                      Function<KubeApi, WorkloadProcess> thenStart, Duration deadline, PrintStream out)
            throws InterruptedException {
        long start = System.nanoTime();
        long nextProgress = start + PROGRESS_EVERY.toNanos();
        List<WorkloadProcess> waiting = new ArrayList<>(processes);
        boolean apiUp = false;
        while (!waiting.isEmpty() || !apiUp) {
            if (!apiUp && api.isDone()) {
                apiUp = true;
                KubeApi kube = api.join();
                if (thenStart != null) {
                    out.printf("  %-10s up after    %5.1f s, serving the CRDs %s%n", "emulated API",
                            (System.nanoTime() - start) / 1e9, kube.crds());
                    WorkloadProcess next = thenStart.apply(kube);
                    processes.add(next);
                    waiting.add(next);
                    out.println("  started " + next.name() + " (pid " + next.pid() + "), log " + next.log());
                }
            }
            for (WorkloadProcess w : List.copyOf(waiting)) {
                if (w.ready()) {
                    waiting.remove(w);
                    out.printf("  %-10s ready after %5.1f s%n", w.name(), (System.nanoTime() - start) / 1e9);
                }
            }
            long now = System.nanoTime();
            List<String> pending = new ArrayList<>(waiting.stream().map(WorkloadProcess::name).toList());
            if (!apiUp) {
                pending.add("emulated API");
            }
            if (!pending.isEmpty() && now - start > deadline.toNanos()) {
                throw new IllegalStateException(pending + " not ready after " + deadline.toMinutes() + " minutes"
                        + (waiting.isEmpty() ? "" : "; the log of " + waiting.getFirst().name() + ":\n"
                        + waiting.getFirst().tail()));
            }
            if (!pending.isEmpty() && now > nextProgress) {
                out.printf("  ... %d s: still starting %s%n", (now - start) / 1_000_000_000, pending);
                nextProgress = now + PROGRESS_EVERY.toNanos();
            }
            Thread.sleep(250);
        }
    }
}
