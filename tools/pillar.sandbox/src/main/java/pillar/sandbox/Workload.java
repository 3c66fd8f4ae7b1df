package pillar.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One pillar-csi workload as it is deployed: a JVM started from the module's packaged module path
 * ({@code modules/<module>/target/<module>-*.jar} and {@code target/modules/}), never from test
 * classes. Under emulation (TCG) a JVM with Helidon and gRPC takes minutes to serve; an AOT cache
 * (JDK 25, {@code target/aot/<module>.aot}) cuts that several times (measured: 160 s to 65 s to
 * ready, three JVMs starting at once). The first start after a build records it.
 *
 * @param name    what the output calls it ("controller", "agent", "node", "node-b")
 * @param module  the JPMS module, e.g. {@code pillar.agent}
 * @param main    the main class's simple name, e.g. {@code AgentMain}
 * @param healthPort the HTTP port of its readiness endpoint
 * @param args    its command-line arguments
 */
record Workload(String name, String module, String main, int healthPort, List<String> args) {
    /** JVM flags for a short-lived server under emulation: C1 only, the serial collector, small stacks (AOT class linking off: see jlink/lib.sh). */
    static final List<String> JVM_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k",
            "-XX:-UsePerfData", "-Xmx192m", "-XX:-AOTClassLinking");

    Workload {
        args = List.copyOf(args);
    }

    /**
     * The java command line, from the project at {@code root}. With {@code aotCache} newer than
     * every jar it runs from, the JVM uses it; without one (or a stale one) and {@code mayTrain},
     * this run records one, written when the JVM exits normally (SIGTERM counts, SIGKILL does not).
     */
    List<String> command(Path root, Path aotCache, boolean mayTrain) {
        Path target = root.resolve("modules").resolve(module).resolve("target");
        Path jar = jar(target, module);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_FLAGS);
        if (fresh(aotCache, target.resolve("modules"), jar)) {
            // -Xlog keeps the JVM's AOT notes (it refuses a cache that does not match, and says so) to errors
            command.addAll(List.of("-XX:AOTCache=" + aotCache, "-Xlog:aot=error", "-Xlog:cds=error"));
        } else if (mayTrain && Files.isDirectory(aotCache.getParent())) {
            command.addAll(List.of("-XX:AOTCacheOutput=" + aotCache, "-Xlog:aot=error", "-Xlog:cds=error"));
        }
        command.add("--enable-native-access=" + nativeModules(target.resolve("modules")));
        command.addAll(List.of("-p", target.resolve("modules") + ":" + jar, "--add-modules", "ALL-MODULE-PATH",
                "-m", module + "/" + module + "." + main));
        command.addAll(args);
        return command;
    }

    /** Whether its cache in {@code aotDir} is newer than every jar it runs from. */
    boolean cacheFresh(Path root, Path aotDir) {
        Path target = root.resolve("modules").resolve(module).resolve("target");
        return fresh(aotDir.resolve(module + ".aot"), target.resolve("modules"), jar(target, module));
    }

    /** Whether the cache exists and is newer than the module's jar and every jar of its module path. */
    static boolean fresh(Path cache, Path modules, Path jar) {
        try (Stream<Path> jars = Files.list(modules)) {
            if (!Files.isRegularFile(cache)) {
                return false;
            }
            FileTime made = Files.getLastModifiedTime(cache);
            for (Path j : Stream.concat(jars, Stream.of(jar)).toList()) {
                if (Files.getLastModifiedTime(j).compareTo(made) >= 0) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The module's packaged jar (not its sources jar); fails with the build to run when absent. */
    static Path jar(Path target, String module) {
        try (Stream<Path> files = Files.list(target)) {
            return files.filter(p -> p.getFileName().toString().matches("\\Q" + module + "\\E-[0-9][^/]*?(?<!-sources)(?<!-tests)\\.jar"))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no " + module + " jar in " + target
                            + ": build first (./mvnw package -DskipTests)"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + target + ": build first (./mvnw package -DskipTests)", e);
        }
    }

    /** The modules that call native code: netty's epoll transport, and JNA where the workload has it. */
    private static String nativeModules(Path modules) {
        try (Stream<Path> jars = Files.list(modules)) {
            boolean jna = jars.anyMatch(p -> p.getFileName().toString().startsWith("jna-jpms-"));
            return jna ? "io.grpc.netty.shaded,com.sun.jna" : "io.grpc.netty.shaded";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
