package pillar.sandbox;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.grpc.StatusRuntimeException;

/**
 * Runs numbered steps, each timed and followed by the kernel objects it changed, and prints them as
 * they go; the first failure throws {@link StepFailed} after printing it. {@link #result} gives
 * what ran, for the final summary and for the suite's assertions.
 */
final class Steps {
    /** One step: its name, how long it took, what it said, what it changed; {@code error} is null when it passed. */
    record Step(String name, long millis, String detail, List<String> changes, String error) {
        boolean passed() {
            return error == null;
        }
    }

    /** Every step that ran; passed when all did and none is missing. */
    record Result(String label, List<Step> steps, int planned) {
        boolean passed() {
            return steps.size() == planned && steps.stream().allMatch(Step::passed);
        }

        Step failed() {
            return steps.stream().filter(s -> !s.passed()).findFirst().orElse(null);
        }

        long totalMillis() {
            return steps.stream().mapToLong(Step::millis).sum();
        }
    }

    /** A step's body: returns a short description of what it did. */
    interface Body {
        String run() throws Exception;
    }

    /** Thrown after a failed step was printed. */
    static final class StepFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StepFailed(String step, Throwable cause) {
            super(step + " failed: " + cause.getMessage(), cause);
        }
    }

    private final PrintStream out;
    private final List<Path> kubeletDirs;
    private final int planned;
    private final List<Step> done = new ArrayList<>();

    Steps(PrintStream out, List<Path> kubeletDirs, int planned) {
        this.out = out;
        this.kubeletDirs = kubeletDirs;
        this.planned = planned;
    }

    void step(String name, Body body) {
        KernelObjects before = KernelObjects.read(kubeletDirs);
        long start = System.nanoTime();
        String detail;
        String error = null;
        Throwable cause = null;
        try {
            detail = body.run();
        } catch (Exception | AssertionError e) {
            detail = "";
            cause = e;
            error = e instanceof StatusRuntimeException s ? s.getStatus().getCode() + ": " + s.getStatus().getDescription()
                    : e.getMessage();
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        List<String> changes = KernelObjects.read(kubeletDirs).changesSince(before);
        Step step = new Step(name, millis, detail, changes, error);
        done.add(step);
        out.printf("  [%2d/%d] %-38s %6.1f s  %s%n", done.size(), planned, name, millis / 1000.0,
                step.passed() ? "ok  " + detail : "FAILED: " + error);
        changes.forEach(c -> out.println("           " + c));
        if (cause != null) {
            throw new StepFailed(name, cause);
        }
    }

    /** Undoes what a failed run set up, best-effort, printing each attempt. */
    void undo(List<Runnable> actions) {
        out.println("  undoing what was set up:");
        for (Runnable action : actions) {
            try {
                action.run();
            } catch (RuntimeException e) {
                out.println("    (undo step failed: " + e.getMessage() + ")");
            }
        }
    }

    Result result(String label) {
        return new Result(label, List.copyOf(done), planned);
    }

    /** The final summary lines. */
    static void summary(Result result, PrintStream out) {
        out.println();
        out.printf("Summary (%s): %d of %d steps passed in %.1f s%n", result.label(),
                result.steps().stream().filter(Step::passed).count(), result.planned(), result.totalMillis() / 1000.0);
        for (Step s : result.steps()) {
            out.printf("  %-6s %-38s %6.1f s%n", s.passed() ? "ok" : "FAILED", s.name(), s.millis() / 1000.0);
        }
        if (result.steps().size() < result.planned()) {
            out.printf("  %d step(s) not run after the failure%n", result.planned() - result.steps().size());
        }
    }
}
