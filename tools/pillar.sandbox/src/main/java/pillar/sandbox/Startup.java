package pillar.sandbox;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Waits for what starts slowly under emulation (each JVM takes a minute or more), printing every
 * 15 s what is still starting: no silent minute. Fails after the deadline with the log of the first
 * workload that is not ready.
 */
final class Startup {
    private static final Duration PROGRESS_EVERY = Duration.ofSeconds(15);

    private Startup() {
    }

    /** Waits until every one of {@code processes} is ready. */
    static void await(List<WorkloadProcess> processes, Duration deadline, PrintStream out) throws InterruptedException {
        await(new ArrayList<>(processes), null, null, deadline, out);
    }

    /**
     * Waits until every one of {@code processes} is ready. When {@code gate} (one of them) is,
     * {@code thenStart} starts one more that needs it, which is waited for too and added to
     * {@code processes}.
     */
    static void await(List<WorkloadProcess> processes, WorkloadProcess gate, Supplier<WorkloadProcess> thenStart,
                      Duration deadline, PrintStream out) throws InterruptedException {
        long start = System.nanoTime();
        long nextProgress = start + PROGRESS_EVERY.toNanos();
        List<WorkloadProcess> waiting = new ArrayList<>(processes);
        boolean started = thenStart == null;
        while (!waiting.isEmpty()) {
            for (WorkloadProcess w : List.copyOf(waiting)) {
                if (w.ready()) {
                    waiting.remove(w);
                    out.printf("  %-10s ready after %5.1f s%n", w.name(), (System.nanoTime() - start) / 1e9);
                }
            }
            if (!started && gate.ready()) {
                started = true;
                WorkloadProcess next = thenStart.get();
                processes.add(next);
                waiting.add(next);
                out.println("  started " + next.name() + " (pid " + next.pid() + "), log " + next.log());
            }
            long now = System.nanoTime();
            List<String> pending = waiting.stream().map(WorkloadProcess::name).toList();
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
