package pillar.bench.proc;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.launch.ChildProcess;
import pillar.launch.HealthProbe;

/**
 * One workload JVM started by the benchmarks, its output in a log file: when it was launched, when
 * it turned ready (its Helidon readiness answering 200), and what the kernel says it costs (RSS and
 * CPU time from /proc); {@code jcmd} forces a full GC and counts the live heap.
 */
public final class Daemon implements AutoCloseable {
    private static final long CLOCK_TICK_NANOS = 10_000_000L; // USER_HZ = 100 on Linux
    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("(?m)^Total\\s+(\\d+)\\s+(\\d+)\\s*$");

    private final ChildProcess process;

    private Daemon(ChildProcess process) {
        this.process = process;
    }

    public static Daemon start(String name, List<String> command, Path log) {
        // as deployed: the runtimes' launchers and the images set it (jlink/lib.sh, MALLOC_ARENAS), unless it is set
        Map<String, String> environment = System.getenv().containsKey("MALLOC_ARENA_MAX") ? Map.of() : Map.of("MALLOC_ARENA_MAX", "2");
        return new Daemon(ChildProcess.start(name, command, log, environment, false));
    }

    public String name() {
        return process.name();
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return process.log();
    }

    /** Waits until {@code GET http://127.0.0.1:PORT/observe/health/ready} answers 200; returns the time since launch. */
    public Duration awaitReady(int healthPort, Duration patience) {
        return process.awaitReady(() -> HealthProbe.isReady(healthPort), patience, Duration.ofMillis(5));
    }

    /** The time since launch. */
    public Duration sinceLaunch() {
        return process.sinceLaunch();
    }

    /** Waits until the log holds a line containing {@code text}; returns that line. */
    public String awaitLog(String text, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            for (String line : logLines()) {
                if (line.contains(text)) {
                    return line;
                }
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException(name() + " never logged '" + text + "'; see " + log() + ":\n" + process.tail());
            }
            pause(20);
        }
    }

    public List<String> logLines() {
        return process.logLines();
    }

    /** Resident set size, KiB ({@code VmRSS} of /proc/PID/status). */
    public long rssKib() {
        return statusField("VmRSS:");
    }

    /** CPU time used so far (user + system), nanoseconds, from /proc/PID/stat. */
    public long cpuNanos() {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid()), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * CLOCK_TICK_NANOS; // utime, stime
        } catch (IOException e) {
            throw new UncheckedIOException(name() + " is gone", e);
        }
    }

    /** Forces a full GC ({@code jcmd PID GC.class_histogram}) and returns the live heap in bytes. */
    public long liveHeapBytes() {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Process p = new ProcessBuilder(jcmd.toString(), String.valueOf(pid()), "GC.class_histogram").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("jcmd failed on " + name() + ": " + out);
            }
            Matcher m = HISTOGRAM_TOTAL.matcher(out);
            if (!m.find()) {
                throw new IllegalStateException("no Total line in the class histogram of " + name() + ": " + out);
            }
            return Long.parseLong(m.group(2));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** SIGTERM, then SIGKILL after 15 s. */
    @Override
    public void close() {
        stop(Duration.ofSeconds(15));
    }

    /** SIGTERM, then SIGKILL after {@code patience} (a JVM writing its AOT cache at exit takes a while). */
    public void stop(Duration patience) {
        process.stop(patience);
    }

    /** SIGKILL, as a crash. */
    public void kill() {
        process.kill();
    }

    private long statusField(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid()), "status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]);
                }
            }
            throw new IllegalStateException("no " + field + " in /proc/" + pid() + "/status");
        } catch (IOException e) {
            throw new UncheckedIOException(name() + " is gone", e);
        }
    }

    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
