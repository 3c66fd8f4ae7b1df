package pillar.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import pillar.launch.HealthProbe;

/**
 * A running workload (or the emulated API): its process, its log file, and whether it is ready (its
 * readiness endpoint answers 200; the emulator has written its kubeconfig). The sandbox and the
 * end-to-end suite start each once and may kill it (SIGKILL, as a crash) and start it again with
 * the same command line.
 */
final class WorkloadProcess implements AutoCloseable {
    private final String name;
    private final String module;
    private final List<String> command;
    private final Path log;
    private final BooleanSupplier readyCheck;
    private Process process;
    private long startedAt;
    private long readyAfterMillis = -1;

    private WorkloadProcess(String name, String module, List<String> command, Path log, BooleanSupplier readyCheck) {
        this.name = name;
        this.module = module;
        this.command = command;
        this.log = log;
        this.readyCheck = readyCheck;
    }

    /**
     * Starts {@code workload} from the project at {@code root}; its output goes to
     * {@code logDir/<name>.log}. {@code mayTrain}: record its AOT cache if there is none (only one
     * process per module may).
     */
    static WorkloadProcess start(Workload workload, Path root, Path aotDir, Path logDir, boolean mayTrain) {
        Path aot = aotDir.resolve(workload.module() + ".aot");
        WorkloadProcess started = new WorkloadProcess(workload.name(), workload.module(),
                workload.command(root, aot, mayTrain), logDir.resolve(workload.name() + ".log"), () -> HealthProbe.isReady(workload.healthPort()));
        started.launch();
        return started;
    }

    /**
     * Starts the emulated Kubernetes API as its own process ({@code SandboxMain kube-api}, from the
     * sandbox tool's class path, with its AOT cache when fresh): ready once it wrote the kubeconfig.
     */
    static WorkloadProcess startEmulator(BedLayout layout) {
        WorkloadProcess started = new WorkloadProcess("kube-api", "pillar.sandbox", Workloads.emulator(layout),
                layout.logs().resolve("kube-api.log"), () -> Files.isRegularFile(layout.kubeconfig()));
        started.launch();
        return started;
    }

    private void launch() {
        try {
            Files.createDirectories(log.getParent());
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + String.join(" ", command), e);
        }
        startedAt = System.nanoTime();
        readyAfterMillis = -1;
    }

    String name() {
        return name;
    }

    /** The module it runs (one process per module records its AOT cache). */
    String module() {
        return module;
    }

    Path log() {
        return log;
    }

    long pid() {
        return process.pid();
    }

    /** Whether it answers 200 on {@code /observe/health/ready}; remembers when it first did. */
    boolean ready() {
        if (readyAfterMillis >= 0) {
            return true;
        }
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with status " + process.exitValue()
                    + " before it was ready; its log (" + log + "):\n" + tail());
        }
        if (readyCheck.getAsBoolean()) {
            readyAfterMillis = (System.nanoTime() - startedAt) / 1_000_000;
            return true;
        }
        return false;
    }

    long secondsSinceStart() {
        return (System.nanoTime() - startedAt) / 1_000_000_000;
    }

    long readyAfterMillis() {
        return readyAfterMillis;
    }

    /** SIGKILL and wait: what a crash or an OOM kill does. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Starts it again with the same command line (after {@link #kill}). */
    void restart() {
        if (process.isAlive()) {
            throw new IllegalStateException(name + " is still running");
        }
        launch();
    }

    /** The last lines of its log. */
    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    /** SIGTERM, without waiting (to stop several at once before {@link #close}). */
    void terminate() {
        if (process != null && process.isAlive()) {
            process.destroy();
        }
    }

    /** SIGTERM, then SIGKILL after 3 minutes (a JVM recording its AOT cache writes it on the way out). */
    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                // a JVM recording its AOT cache writes it now: give it time under emulation
                if (!process.waitFor(3, TimeUnit.MINUTES)) {
                    process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
