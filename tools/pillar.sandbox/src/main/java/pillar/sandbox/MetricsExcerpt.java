package pillar.sandbox;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.launch.MetricsScrape;

/**
 * What the sandbox prints of each workload's {@code /metrics} at its end: the gRPC calls the workload
 * served ({@code pillar_csi_operation_seconds}), one line per method and status code with the count
 * and the mean time, read back from the workload's real exposition.
 */
final class MetricsExcerpt {
    private static final Pattern SERIES = Pattern.compile(
            "^pillar_csi_operation_seconds_(count|sum)\\{code=\"([A-Z_]+)\",method=\"(\\w+)\",workload=\"\\w+\"} (\\S+)$");

    /** A method's calls with one status code. */
    record Calls(String method, String code, long count, double seconds) {
        @Override
        public String toString() {
            return "%-28s %-20s %4d call%s, mean %.1f ms".formatted(method, code, count, count == 1 ? "" : "s",
                    count == 0 ? 0 : seconds * 1000 / count);
        }
    }

    private MetricsExcerpt() {
    }

    /** The calls in an exposition text, in its order. */
    static List<Calls> calls(String exposition) {
        Map<String, long[]> counts = new LinkedHashMap<>();
        Map<String, Double> sums = new LinkedHashMap<>();
        for (String line : exposition.split("\n")) {
            Matcher m = SERIES.matcher(line);
            if (m.matches()) {
                String key = m.group(3) + " " + m.group(2);
                if (m.group(1).equals("count")) {
                    counts.put(key, new long[] {(long) Double.parseDouble(m.group(4))});
                } else {
                    sums.put(key, Double.parseDouble(m.group(4)));
                }
            }
        }
        List<Calls> calls = new ArrayList<>();
        counts.forEach((key, count) -> {
            String[] parts = key.split(" ");
            calls.add(new Calls(parts[0], parts[1], count[0], sums.getOrDefault(key, 0.0)));
        });
        return calls;
    }

    /** Prints each workload's calls, read from its metrics port now. */
    static void print(Map<String, Integer> healthPorts, PrintStream out) {
        out.println("== what each workload counted (/metrics on its health port; pillar_csi_operation_seconds)");
        healthPorts.forEach((workload, port) -> {
            try {
                out.println("  " + workload + " (" + MetricsScrape.uri(port) + "):");
                calls(MetricsScrape.text(MetricsScrape.uri(port))).forEach(c -> out.println("    " + c));
            } catch (IOException e) {
                out.println("    cannot read it: " + e.getMessage());
            }
        });
    }

    /** {@code PILLAR_METRICS_URLS}: the three workloads' metrics URLs, space-separated. */
    static String urls(Map<String, Integer> healthPorts) {
        return String.join(" ", healthPorts.values().stream().map(p -> MetricsScrape.uri(p).toString()).toList());
    }
}
