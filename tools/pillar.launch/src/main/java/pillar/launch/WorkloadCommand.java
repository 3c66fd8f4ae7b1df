package pillar.launch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The java command line of a pillar-csi workload as it is deployed: its module's packaged jar and
 * module path ({@code modules/<module>/target/<module>-*.jar} and {@code target/modules/}), never
 * test classes, with the JVM flags for a short-lived server under emulation and, when fresh, its AOT
 * cache ({@code target/aot/<module>.aot}, JDK 25). Under TCG a JVM with Helidon and gRPC takes
 * minutes to serve; the cache cuts that several times. A cache is used only by a command line with
 * the same module path and flags as the one that recorded it, which is why every tool and test
 * builds it here.
 *
 * @param module the JPMS module, e.g. {@code pillar.agent}
 * @param main   the main class's simple name, e.g. {@code AgentMain}
 * @param args   its command-line arguments
 */
public record WorkloadCommand(String module, String main, List<String> args) {
    /** JVM flags: C1 only, the serial collector, small stacks (AOT class linking off: see jlink/lib.sh). */
    public static final List<String> JVM_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k",
            "-XX:-UsePerfData", "-Xmx192m", "-XX:-AOTClassLinking");

    /** What to do about the AOT cache. */
    public enum Aot {
        /** Use it when it is fresh; run without it otherwise. */
        USE,
        /** Use it when fresh; otherwise record it (written when the JVM exits normally: SIGTERM, not SIGKILL). */
        USE_OR_RECORD
    }

    public WorkloadCommand {
        args = List.copyOf(args);
    }

    /** The AOT cache of {@code module} in the project at {@code root}. */
    public static Path aotCache(Path root, String module) {
        return root.resolve("target/aot").resolve(module + ".aot");
    }

    /** The command line from the project at {@code root}, with {@code aotCache} as {@code aot} says. */
    public List<String> toList(Path root, Path aotCache, Aot aot) {
        Path target = root.resolve("modules").resolve(module).resolve("target");
        Path jar = jar(target, module);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_FLAGS);
        if (fresh(aotCache, target.resolve("modules"), jar)) {
            // -Xlog keeps the JVM's AOT notes (it refuses a cache that does not match, and says so) to errors
            command.addAll(List.of("-XX:AOTCache=" + aotCache, "-Xlog:aot=error", "-Xlog:cds=error"));
        } else if (aot == Aot.USE_OR_RECORD && Files.isDirectory(aotCache.getParent())) {
            command.addAll(List.of("-XX:AOTCacheOutput=" + aotCache, "-Xlog:aot=error", "-Xlog:cds=error"));
        }
        command.add("--enable-native-access=" + nativeModules(target.resolve("modules")));
        command.addAll(List.of("-p", target.resolve("modules") + ":" + jar, "--add-modules", "ALL-MODULE-PATH",
                "-m", module + "/" + module + "." + main));
        command.addAll(args);
        return command;
    }

    /** {@link #toList(Path, Path, Aot)} with the module's own cache of the project, used when fresh. */
    public List<String> toList(Path root) {
        return toList(root, aotCache(root, module), Aot.USE);
    }

    /** Whether its cache in {@code aotDir} is newer than every jar it runs from. */
    public boolean cacheFresh(Path root, Path aotDir) {
        Path target = root.resolve("modules").resolve(module).resolve("target");
        return fresh(aotDir.resolve(module + ".aot"), target.resolve("modules"), jar(target, module));
    }

    /** Whether the cache exists and is newer than {@code jar} and every jar in {@code modules}. */
    public static boolean fresh(Path cache, Path modules, Path jar) {
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

    /** The module's packaged jar in {@code target} (not its sources or tests jar); fails with the build to run when absent. */
    public static Path jar(Path target, String module) {
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
