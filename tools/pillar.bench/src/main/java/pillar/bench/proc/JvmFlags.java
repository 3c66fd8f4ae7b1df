package pillar.bench.proc;

import java.util.Arrays;
import java.util.List;

/**
 * The JVM flags the benchmarks start the workloads with, when they do not start a jlink runtime
 * (whose conf/jvm.options then apply): a small daemon's settings. Overridden with
 * {@code --jvm-flags="..."} (space-separated) to compare settings.
 */
public final class JvmFlags {
    /**
     * The settings measured as the default (see docs/benchmarks.md, tuning): those of the runtimes'
     * conf/jvm.options (jlink/lib.sh, jvm_options), bar the heap's limit ({@link #heap}), the AOT cache
     * and the native-access flags.
     */
    public static final List<String> DAEMON = List.of(
            "-XX:+UseSerialGC", "-Xms8m", "-XX:MinHeapFreeRatio=10", "-XX:MaxHeapFreeRatio=30",
            "-XX:-ShrinkHeapInSteps", "-XX:MaxMetaspaceSize=96m", "-XX:ReservedCodeCacheSize=32m", "-XX:TieredStopAtLevel=1",
            "-XX:CICompilerCount=1", "-Xss512k", "-XX:-UsePerfData", "-XX:TrimNativeHeapInterval=2000", "-XX:+ExitOnOutOfMemoryError",
            "-XX:-AOTClassLinking");

    private JvmFlags() {
    }

    /**
     * The workload's heap limit as its conf/jvm.options has it: 192m for the controller (its informers
     * hold every PillarVolumeState), 64m for the others. Comes first, so a {@code -Xmx} in
     * {@code --jvm-flags} wins.
     */
    public static String heap(String workload) {
        return workload.equals("controller") ? "-Xmx192m" : "-Xmx64m";
    }

    public static List<String> parse(String flags) {
        return flags.isBlank() ? List.of() : Arrays.stream(flags.trim().split("\\s+")).toList();
    }
}
