package pillar.sandbox;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Prints the VM guest's memory at a fixed period while open, one line each: what is available, what the
 * memory-backed pools hold (Shmem: the loop devices' tmpfs files), dirty and writeback pages, and the ZFS
 * ARC. A line that stops coming shows when the guest stalled; the last ones show whether memory ran out.
 */
final class GuestMemory implements AutoCloseable {
    private static final List<String> FIELDS = List.of("MemAvailable", "Shmem", "Cached", "Dirty", "Writeback");
    private final ScheduledExecutorService timer;

    private GuestMemory(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** Starts printing every {@code period} to {@code out}, each line prefixed with {@code prefix}. */
    static GuestMemory printEvery(Duration period, String prefix, PrintStream out) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "guest-memory");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleAtFixedRate(() -> out.println(prefix + line()), 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return new GuestMemory(timer);
    }

    /** One reading: "memory: MemAvailable 812 MiB, Shmem 1210 MiB, ..., ARC 201 MiB". */
    static String line() {
        try {
            Map<String, Long> kib = new HashMap<>();
            for (String row : Files.readAllLines(Path.of("/proc/meminfo"))) {
                String[] parts = row.split("[:\\s]+");
                if (parts.length >= 2) {
                    kib.put(parts[0], Long.parseLong(parts[1]));
                }
            }
            StringBuilder text = new StringBuilder("memory:");
            for (String field : FIELDS) {
                text.append(' ').append(field).append(' ').append(kib.getOrDefault(field, -1024L) / 1024).append(" MiB,");
            }
            return text.append(" ARC ").append(arcMiB()).append(" MiB").toString();
        } catch (IOException | RuntimeException e) {
            return "memory: unreadable (" + e + ")";
        }
    }

    /** The ZFS ARC's size, or -1 without the zfs module. */
    private static long arcMiB() throws IOException {
        Path stats = Path.of("/proc/spl/kstat/zfs/arcstats");
        if (!Files.exists(stats)) {
            return -1;
        }
        for (String row : Files.readAllLines(stats)) {
            String[] parts = row.trim().split("\\s+");
            if (parts.length == 3 && parts[0].equals("size")) {
                return Long.parseLong(parts[2]) >> 20;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
