package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.launch.ChildProcess;
import pillar.launch.HealthProbe;
import pillar.launch.WorkloadCommand;

/**
 * The agent as a real process (the *KernelIT tests in the VM): started as deployed and as the sandbox
 * starts it ({@link WorkloadCommand}: its packaged module path, with the AOT cache recorded on the host
 * when fresh), reached over real gRPC on TCP, killed with SIGKILL. Its output goes to
 * {@code <dir>/agent.log} (rewritten at each start).
 */
final class AgentProcess implements AutoCloseable {
    private final Path dir;
    private final int grpcPort;
    private final int healthPort;
    private final Map<String, String> environment;
    private ChildProcess process;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;

    AgentProcess(Path dir, int grpcPort, int healthPort) {
        this(dir, grpcPort, healthPort, Map.of());
    }

    /** An agent whose process gets these variables added to its environment (another PATH, say). */
    AgentProcess(Path dir, int grpcPort, int healthPort, Map<String, String> environment) {
        this.dir = dir;
        this.grpcPort = grpcPort;
        this.healthPort = healthPort;
        this.environment = Map.copyOf(environment);
    }

    /**
     * Writes the configuration of an agent on the real kernel to {@code file}: its API and health on
     * 127.0.0.1 at these ports, {@code stateDir}, the kernel's configfs, {@code settings} (more lines of the
     * {@code agent:} section, e.g. {@code call-budget-seconds: 10}) and one backend per YAML flow mapping.
     */
    static Path writeConfig(Path file, int grpcPort, int healthPort, Path stateDir, List<String> settings, String... backends)
            throws IOException {
        StringBuilder yaml = new StringBuilder("agent:\n")
                .append("  listen: {host: 127.0.0.1, port: ").append(grpcPort).append("}\n")
                .append("  state-dir: ").append(stateDir).append('\n')
                .append("  configfs-root: /sys/kernel/config\n");
        settings.forEach(setting -> yaml.append("  ").append(setting).append('\n'));
        yaml.append("  backends:\n");
        for (String backend : backends) {
            yaml.append("    - ").append(backend).append('\n');
        }
        yaml.append("health: {host: 127.0.0.1, port: ").append(healthPort).append("}\n");
        return Files.writeString(file, yaml);
    }

    /** Starts the agent and waits until it reports ready; returns how long that took. */
    Duration start(Path config) throws Exception {
        launch(config);
        // generous: under TCG on a loaded host a JVM and Helidon take minutes to start (not a timing check)
        Duration took = process.awaitReady(() -> HealthProbe.isReady(healthPort), Duration.ofMinutes(10), Duration.ofMillis(200));
        // what the start-up did and how long its parts took, from the agent's own log
        log().lines().filter(line -> line.contains("start-up checks") || line.contains("re-applied") || line.contains("ready:")
                || line.contains("drift") || line.startsWith("WARNING") || line.startsWith("SEVERE"))
                .forEach(line -> System.out.println("[agent log] " + line));
        if (channel != null) {
            channel.shutdownNow();
        }
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", grpcPort, InsecureChannelCredentials.create()).build();
        stub = AgentServiceGrpc.newBlockingStub(channel);
        // the first call loads and compiles the gRPC paths of both JVMs (tens of seconds under TCG):
        // made here, so that no measured call pays for it
        long first = System.nanoTime();
        assertThat(stub.withDeadlineAfter(10, TimeUnit.MINUTES).getCapabilities(GetCapabilitiesRequest.getDefaultInstance())
                .getBackendsCount()).isPositive();
        System.out.println("[agent] first call (GetCapabilities, warms both sides up) took "
                + (System.nanoTime() - first) / 1_000_000 + " ms");
        return took;
    }

    /** Launches the agent and returns at once (the caller watches its log). */
    void launchOnly(Path config) {
        launch(config);
    }

    /** Starts the agent and waits for it to exit on its own (a refusal to start); returns its exit status. */
    int startExpectingExit(Path config) throws Exception {
        launch(config);
        return process.awaitExit(Duration.ofMinutes(10));
    }

    /** A stub with a generous deadline (TCG is slow). */
    AgentServiceGrpc.AgentServiceBlockingStub stub() {
        return stub.withDeadlineAfter(3, TimeUnit.MINUTES);
    }

    /** SIGKILL, as an OOM kill or a node crash ends it. */
    void kill() {
        if (process != null) {
            process.kill();
        }
    }

    String log() throws IOException {
        return Files.readString(dir.resolve("agent.log"));
    }

    @Override
    public void close() {
        kill();
        if (channel != null) {
            channel.shutdownNow();
        }
    }

    private void launch(Path config) {
        List<String> command = new WorkloadCommand("pillar.agent", "AgentMain", List.of("--config", config.toString()))
                .toList(Path.of("").toAbsolutePath());
        process = ChildProcess.start("the agent", command, dir.resolve("agent.log"), environment, false);
    }
}
