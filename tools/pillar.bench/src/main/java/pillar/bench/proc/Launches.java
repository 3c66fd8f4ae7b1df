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
 * built), and the fake-backed agent and node: the same jars on the class path with their test-jars (the
 * fakes) and a main of this tool.
 */
public final class Launches {
    private final Layout layout;
    private final List<String> flags;
    private final String java;
    private final boolean runtimes;

    public Launches(Layout layout, List<String> flags) {
        this(layout, flags, true);
    }

    /**
     * @param runtimes whether the real mains start from their jlink runtimes when built (as deployed);
     *                 false: always from the module path with {@code flags} (to compare JVM settings)
     */
    public Launches(Layout layout, List<String> flags, boolean runtimes) {
        this.layout = layout;
        this.flags = List.copyOf(flags);
        this.runtimes = runtimes;
        this.java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public List<String> flags() {
        return flags;
    }

    /**
     * The real main of a workload as deployed: its jlink launcher at /opt/pillar when built (jlink/run-at-home),
     * else its module path.
     */
    public List<String> real(String workload, List<String> args) {
        return real(workload, List.of(), args);
    }

    /** {@link #real}, with extra JVM flags after the usual ones (when started from the module path). */
    public List<String> real(String workload, List<String> extraFlags, List<String> args) {
        List<String> command = new ArrayList<>();
        if (usesRuntime(workload) && !extraFlags.isEmpty()) {
            throw new IllegalArgumentException("a jlink runtime starts with its own conf/jvm.options, not " + extraFlags);
        }
        layout.runtime(workload).filter(home -> runtimes).ifPresentOrElse(
                // from /opt/pillar, where its AOT cache was trained: from its build directory the JVM
                // would start without the cache, silently
                home -> command.addAll(List.of(layout.root().resolve("jlink/run-at-home").toString(), home.toString(), workload)),
                () -> {
                    command.add(java);
                    command.add(JvmFlags.heap(workload));
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
        return runtimes && layout.runtime(workload).isPresent();
    }

    public List<String> fakeAgent(List<String> extraFlags, List<String> args) {
        return fakeBacked("agent", extraFlags, "pillar.bench.fake.FakeAgentMain", args);
    }

    public List<String> fakeNode(List<String> args) {
        return fakeBacked("node", List.of(), "pillar.bench.fake.FakeNodeMain", args);
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

    /**
     * A fake-backed workload: the bench's main, the workload's jar, its test-jar (the fakes) and its
     * dependencies on the class path. Not the module path: patching test classes into a module
     * ({@code --patch-module}) turns the JVM's class-data sharing off, and that would make these JVMs
     * bigger and slower to start than the deployed ones.
     */
    private List<String> fakeBacked(String workload, List<String> extraFlags, String main, List<String> args) {
        String[] modulePath = layout.modulePath(workload).split(":");
        List<String> command = new ArrayList<>(List.of(java, JvmFlags.heap(workload)));
        command.addAll(flags);
        command.addAll(extraFlags);
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-cp", String.join(":", layout.benchJar().toString(),
                modulePath[1], layout.testJar(workload).toString(), modulePath[0] + "/*"), main));
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
