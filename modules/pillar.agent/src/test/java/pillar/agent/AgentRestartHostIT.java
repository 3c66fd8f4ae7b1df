package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.launch.ChildProcess;
import pillar.launch.HealthProbe;

/**
 * A restarted agent comes back (real agent processes on this host, its configfs a stand-in
 * directory, its LVM tools shims on its PATH): started while its port is still held, as by an earlier
 * instance that is still exiting, it waits and serves once the port is free; a port held for good
 * stops it with a non-zero status and the holder named, never an exit 0 after "ready" on port -1; and
 * one SIGKILLed in the middle of a call, with the call's child command still running, is started
 * again at once on the same ports (a child never holds the agent's sockets).
 */
class AgentRestartHostIT {
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    private final List<ChildProcess> agents = new ArrayList<>();
    private final List<ManagedChannel> channels = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        channels.forEach(ManagedChannel::shutdownNow);
        agents.forEach(ChildProcess::kill);
        Path child = dir.resolve("bin/child.pid");
        if (Files.exists(child)) {
            ProcessHandle.of(Long.parseLong(Files.readString(child).strip())).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void anAgentStartedWhileItsPortIsHeldServesOnceTheHolderLetsGo() throws Exception {
        int[] ports = freePorts();
        Path config = config(ports, 120);
        ChildProcess agent;
        try (ServerSocket previous = hold(ports[0])) {
            agent = launch(config, "agent-1");
            awaitLog(agent, "is in use, held by pid " + ProcessHandle.current().pid());
        }
        agent.awaitReady(() -> HealthProbe.isReady(ports[1]), PATIENCE, Duration.ofMillis(100));
        assertThat(stub(ports[0]).getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getBackendsCount()).isEqualTo(1);
        assertThat(agent.logLines()).as("it waited and said so").anyMatch(line -> line.contains("is free now"));
    }

    @Test
    void anAgentWhosePortStaysHeldExitsNonZeroNamingTheHolder() throws Exception {
        int[] ports = freePorts();
        try (ServerSocket holder = hold(ports[1])) {
            ChildProcess agent = launch(config(ports, 1), "agent-1");
            int status = agent.awaitExit(PATIENCE);
            assertThat(status).as("it cannot serve: a supervisor must restart it").isEqualTo(AgentMain.CANNOT_SERVE);
            assertThat(String.join("\n", agent.logLines())).contains("pillar-agent: cannot listen: cannot listen on 127.0.0.1:"
                    + ports[1] + ": the address is in use, held by pid " + ProcessHandle.current().pid())
                    .doesNotContain("pillar-agent ready");
        }
    }

    @Test
    void anAgentKilledWithAChildCommandInFlightIsBackAtOnceOnTheSamePorts() throws Exception {
        int[] ports = freePorts();
        Path config = config(ports, 120);
        ChildProcess first = launch(config, "agent-1");
        first.awaitReady(() -> HealthProbe.isReady(ports[1]), PATIENCE, Duration.ofMillis(100));
        // a call whose LVM command hangs: the child runs when the agent is killed
        Files.writeString(dir.resolve("bin/hang"), "");
        Thread call = Thread.ofVirtual().start(() -> {
            try {
                stub(ports[0]).withDeadlineAfter(1, TimeUnit.MINUTES).getCapacity(GetCapacityRequest.newBuilder().setBackend("thin").build());
            } catch (RuntimeException expected) {
                // the agent dies under it
            }
        });
        Path childPid = dir.resolve("bin/child.pid");
        awaitFile(childPid);
        ProcessHandle child = ProcessHandle.of(Long.parseLong(Files.readString(childPid).strip())).orElseThrow();
        first.kill();
        call.join(Duration.ofMinutes(1).toMillis());
        Files.delete(dir.resolve("bin/hang"));
        assertThat(child.isAlive()).as("the killed agent's child runs on").isTrue();

        ChildProcess second = launch(config, "agent-2");
        second.awaitReady(() -> HealthProbe.isReady(ports[1]), PATIENCE, Duration.ofMillis(100));
        assertThat(stub(ports[0]).getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getBackendsCount()).isEqualTo(1);
        assertThat(second.logLines()).as("nothing held its ports").noneMatch(line -> line.contains("is in use"));
        assertThat(child.isAlive()).as("the child was still running while the agent restarted").isTrue();
    }

    /** The agent's configuration: a stand-in configfs, one thin backend whose tools are the shims. */
    private Path config(int[] ports, int bindTimeoutSeconds) throws IOException {
        Files.createDirectories(dir.resolve("configfs/nvmet"));
        Path bin = Files.createDirectories(dir.resolve("bin"));
        // the LVM tools: fail (no such volume group), or with bin/hang present record their pid and hang
        String shim = "#!/bin/sh\nif [ -e " + bin.resolve("hang") + " ]; then echo $$ > " + bin.resolve("child.pid")
                + "; exec sleep 600; fi\necho '  Volume group \"novg\" not found' >&2\nexit 5\n";
        for (String tool : List.of("lvs", "vgs", "lvm")) {
            Path file = bin.resolve(tool);
            Files.writeString(file, shim);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, """
                agent:
                  listen: {host: 127.0.0.1, port: %d}
                  state-dir: %s
                  configfs-root: %s
                  node-name: storage-1
                  backends:
                    - {name: thin, type: lvm-thin, volume-group: novg, thin-pool: pool0}
                health: {port: %d}
                server: {bind-timeout-seconds: %d}
                """.formatted(ports[0], dir.resolve("state"), dir.resolve("configfs"), ports[1], bindTimeoutSeconds));
        return config;
    }

    /** The agent as its own JVM, on this test's class path, with the shims first on its PATH. */
    private ChildProcess launch(Path config, String name) {
        String path = Optional.ofNullable(System.getProperty("jdk.module.path")).map(p -> p + File.pathSeparator).orElse("")
                + System.getProperty("java.class.path");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", path, AgentMain.class.getName(), "--config", config.toString());
        ChildProcess agent = ChildProcess.start(name, command, dir.resolve(name + ".log"),
                Map.of("PATH", dir.resolve("bin") + File.pathSeparator + System.getenv("PATH")), false);
        agents.add(agent);
        return agent;
    }

    private AgentServiceGrpc.AgentServiceBlockingStub stub(int port) {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create()).build();
        channels.add(channel);
        return AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(1, TimeUnit.MINUTES);
    }

    /** A listening socket on the port, as the previous instance's is until its process is gone. */
    private static ServerSocket hold(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress("127.0.0.1", port));
        return socket;
    }

    /** Two ports free now: the agent API's and the health port. */
    private static int[] freePorts() throws IOException {
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
            return new int[] {a.getLocalPort(), b.getLocalPort()};
        }
    }

    private static void awaitLog(ChildProcess process, String text) {
        process.awaitReady(() -> process.logLines().stream().anyMatch(line -> line.contains(text)), PATIENCE, Duration.ofMillis(100));
    }

    private static void awaitFile(Path file) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!Files.exists(file)) {
            assertThat(System.nanoTime() - deadline).as(file + " within " + PATIENCE).isNegative();
            Thread.sleep(100);
        }
    }
}
