package pillar.sandbox;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

import pillar.launch.ChildProcess;
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
    private final BooleanSupplier readyCheck;
    private ChildProcess process;
    private long readyAfterMillis = -1;

    private WorkloadProcess(String name, String module, List<String> command, Path log, BooleanSupplier readyCheck) {
        this.name = name;
        this.module = module;
        this.readyCheck = readyCheck;
        this.process = ChildProcess.start(name, command, log, Map.of(), true);
    }

    /**
     * Starts {@code workload} from the project at {@code root}; its output goes to
     * {@code logDir/<name>.log}. {@code mayTrain}: record its AOT cache if there is none (only one
     * process per module may).
     */
    static WorkloadProcess start(Workload workload, Path root, Path aotDir, Path logDir, boolean mayTrain) {
        Path aot = aotDir.resolve(workload.module() + ".aot");
        return new WorkloadProcess(workload.name(), workload.module(), workload.command(root, aot, mayTrain),
                logDir.resolve(workload.name() + ".log"), () -> HealthProbe.isReady(workload.healthPort()));
    }

    /**
     * Starts {@code workload} inside the network namespace {@code /run/netns/<netns>} ({@code nsenter
     * --net}, which keeps the common mount namespace: its mounts are everyone's, as a node's are on its
     * host), never recording an AOT cache; it is ready when {@code ready} says so (its health port is
     * the namespace's loopback, which the caller cannot reach).
     */
    static WorkloadProcess startInNetns(Workload workload, String netns, Path root, Path aotDir, Path logDir,
                                        BooleanSupplier ready) {
        List<String> command = new java.util.ArrayList<>(List.of("nsenter", "--net=/run/netns/" + netns));
        command.addAll(workload.command(root, aotDir.resolve(workload.module() + ".aot"), false));
        return new WorkloadProcess(workload.name(), workload.module(), command, logDir.resolve(workload.name() + ".log"), ready);
    }

    /**
     * Starts the emulated Kubernetes API as its own process ({@code SandboxMain kube-api}, from the
     * sandbox tool's class path, with its AOT cache when fresh): ready once it wrote the kubeconfig.
     */
    static WorkloadProcess startEmulator(BedLayout layout) {
        return new WorkloadProcess("kube-api", "pillar.sandbox", Workloads.emulator(layout),
                layout.logs().resolve("kube-api.log"), () -> Files.isRegularFile(layout.kubeconfig()));
    }

    String name() {
        return name;
    }

    /** The module it runs (one process per module records its AOT cache). */
    String module() {
        return module;
    }

    Path log() {
        return process.log();
    }

    long pid() {
        return process.pid();
    }

    /** Whether it answers 200 on {@code /observe/health/ready}; remembers when it first did. */
    boolean ready() {
        if (readyAfterMillis >= 0) {
            return true;
        }
        process.requireAlive("it was ready");
        if (readyCheck.getAsBoolean()) {
            readyAfterMillis = process.sinceLaunch().toMillis();
            return true;
        }
        return false;
    }

    long secondsSinceStart() {
        return process.sinceLaunch().toSeconds();
    }

    long readyAfterMillis() {
        return readyAfterMillis;
    }

    /** SIGKILL and wait: what a crash or an OOM kill does. */
    void kill() {
        process.kill();
    }

    /** Starts it again with the same command line (after {@link #kill}). */
    void restart() {
        process = process.again();
        readyAfterMillis = -1;
    }

    /** The last lines of its log. */
    String tail() {
        return process.tail();
    }

    /** SIGTERM, without waiting (to stop several at once before {@link #close}). */
    void terminate() {
        process.terminate();
    }

    /** SIGTERM, then SIGKILL after 3 minutes (a JVM recording its AOT cache writes it on the way out, slowly under emulation). */
    @Override
    public void close() {
        process.stop(Duration.ofMinutes(3));
    }
}
