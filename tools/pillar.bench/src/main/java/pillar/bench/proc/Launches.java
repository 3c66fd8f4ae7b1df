package pillar.bench.proc;

import java.net.ServerSocket;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command lines of the JVMs the benchmarks start, one per workload as deployed: the real mains
 * from their module paths ({@code java -p ... -m pillar.W/...}, or the jlink runtime's launcher when
 * built), and the fake-backed agent and node, which are the same modules on the same module path with
 * their test classes patched in ({@code --patch-module}) and a main of this tool on the class path.
 */
public final class Launches {
    private static final String[] AGENT_PACKAGES = {"pillar.agent", "pillar.agent.backend", "pillar.agent.config",
        "pillar.agent.configfs", "pillar.agent.export"};
    private static final String[] NODE_PACKAGES = {"pillar.node", "pillar.node.fs", "pillar.node.mount", "pillar.node.nvme",
        "pillar.node.service", "pillar.node.stage"};

    private final Layout layout;
    private final List<String> flags;
    private final String java;

    public Launches(Layout layout, List<String> flags) {
        this.layout = layout;
        this.flags = List.copyOf(flags);
        this.java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public List<String> flags() {
        return flags;
    }

    /** The real main of a workload as deployed: its jlink launcher when built, else its module path. */
    public List<String> real(String workload, List<String> args) {
        return real(workload, List.of(), args);
    }

    /** {@link #real}, with extra JVM flags after the usual ones (when started from the module path). */
    public List<String> real(String workload, List<String> extraFlags, List<String> args) {
        List<String> command = new ArrayList<>();
        layout.runtime(workload).ifPresentOrElse(
                home -> command.add(home.resolve("bin/pillar-" + workload).toString()),
                () -> {
                    command.add(java);
                    command.addAll(flags);
                    command.addAll(extraFlags);
                    command.add("--enable-native-access=" + (workload.equals("node") ? "com.sun.jna," : "") + "io.grpc.netty.shaded");
                    command.addAll(List.of("-p", layout.modulePath(workload), "--add-modules", "ALL-MODULE-PATH",
                            "-m", "pillar." + workload + "/pillar." + workload + "." + capitalized(workload) + "Main"));
                });
        command.addAll(args);
        return command;
    }

    /** Whether {@link #real} starts the jlink runtime (with its own jvm.options) rather than the module path. */
    public boolean usesRuntime(String workload) {
        return layout.runtime(workload).isPresent();
    }

    public List<String> fakeAgent(List<String> args) {
        return patched("agent", AGENT_PACKAGES, "pillar.bench.fake.FakeAgentMain", args);
    }

    public List<String> fakeNode(List<String> args) {
        return patched("node", NODE_PACKAGES, "pillar.bench.fake.FakeNodeMain", args);
    }

    /**
     * The emulated Kubernetes API of tools/pillar.sandbox, writing a kubeconfig for it; its log of every
     * request is turned down to warnings (a logging configuration written to {@code dir}).
     */
    public List<String> kubeApi(int port, Path kubeconfig, Path dir) {
        Path logging = dir.resolve("kube-api-logging.properties");
        try {
            Files.writeString(logging, """
                    handlers=java.util.logging.ConsoleHandler
                    .level=INFO
                    io.fabric8.mockwebserver.level=WARNING
                    """);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.of(java, "-XX:+UseSerialGC", "--enable-native-access=ALL-UNNAMED",
                "-Djava.util.logging.config.file=" + logging, "-cp", layout.sandboxClasspath(), "pillar.sandbox.SandboxMain", "kube-api", String.valueOf(port),
                kubeconfig.toString(), layout.crds().toString());
    }

    private List<String> patched(String workload, String[] packages, String main, List<String> args) {
        String module = "pillar." + workload;
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(flags);
        command.add("--enable-native-access=" + (workload.equals("node") ? "com.sun.jna," : "") + "io.grpc.netty.shaded");
        command.addAll(List.of("-p", layout.modulePath(workload), "--patch-module", module + "=" + layout.testJar(workload),
                "--add-modules", "ALL-MODULE-PATH"));
        for (String p : packages) {
            command.addAll(List.of("--add-exports", module + "/" + p + "=ALL-UNNAMED"));
        }
        command.addAll(List.of("-cp", layout.benchJar().toString(), main));
        command.addAll(args);
        return command;
    }

    private static String capitalized(String s) {
        return Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** A TCP port nobody listens on now. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
