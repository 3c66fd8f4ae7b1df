package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The chart README's "Values" table and values.yaml say the same: every value in values.yaml is
 * named by a row, every row names values that exist, and a row naming one value with one default
 * shows values.yaml's default. A row's first cell lists keys in backticks: a key with a dot is a path
 * ({@code *} or {@code <name>} stands for any one key, and a path covers everything below it); a key
 * without one, after the row's first, is a sibling of the key before it ({@code `agent.listenHost`, `port`}).
 */
class ValuesTableTest {
    private static final Pattern KEY = Pattern.compile("`([^`]+)`");

    @Test
    void theReadmesValuesTableNamesEveryValueAndItsDefault() throws IOException {
        Map<String, Object> leaves = new LinkedHashMap<>();
        flatten("", new Yaml().load(Files.readString(HelmChart.dir().resolve("values.yaml"))), leaves);
        List<Row> rows = rows(Files.readString(HelmChart.dir().resolve("README.md")));
        assertThat(rows).as("the README's Values table").hasSizeGreaterThan(10);

        List<String> uncovered = leaves.keySet().stream()
                .filter(leaf -> rows.stream().flatMap(r -> r.keys().stream()).noneMatch(key -> covers(key, leaf, leaves.get(leaf))))
                .toList();
        assertThat(uncovered).as("values.yaml keys no row of the README's Values table names").isEmpty();

        List<String> unknown = new ArrayList<>();
        List<String> wrongDefaults = new ArrayList<>();
        for (Row row : rows) {
            for (String key : row.keys()) {
                if (leaves.entrySet().stream().noneMatch(e -> covers(key, e.getKey(), e.getValue()))) {
                    unknown.add(key);
                }
            }
            Matcher single = Pattern.compile("^`([^`]*)`$").matcher(row.defaults());
            if (row.keys().size() == 1 && leaves.containsKey(row.keys().getFirst()) && single.matches()) {
                String shown = show(leaves.get(row.keys().getFirst()));
                if (!shown.equals(single.group(1))) {
                    wrongDefaults.add(row.keys().getFirst() + ": README `" + single.group(1) + "`, values.yaml `" + shown + "`");
                }
            }
        }
        assertThat(unknown).as("keys the README's Values table names that values.yaml does not have").isEmpty();
        assertThat(wrongDefaults).as("defaults the README shows otherwise than values.yaml").isEmpty();
    }

    @Test
    void keysCoverWhatIsBelowThemAndSiblingsFollowTheirPath() {
        Map<String, Object> empty = Map.of();
        assertThat(covers("controller.config.*", "controller.config.resync", "10m")).isTrue();
        assertThat(covers("*.resources", "agent.resources.limits.memory", "256Mi")).isTrue();
        assertThat(covers("*.resources", "node.registrar.resources.limits.memory", "64Mi")).isFalse();
        assertThat(covers("agent.nodes.<node>.backends", "agent.nodes", empty)).isTrue();
        assertThat(covers("agent.nodes.<node>.backends", "agent.port", 9500)).isFalse();
        assertThat(rows("## Values\n\n| key | default | meaning |\n|---|---|---|\n| `agent.listenHost`, `port` | x | y |\n\nafter\n"))
                .containsExactly(new Row(List.of("agent.listenHost", "agent.port"), "x"));
    }

    record Row(List<String> keys, String defaults) {
    }

    static List<Row> rows(String readme) {
        String text = "\n" + readme;
        String table = text.substring(text.indexOf("\n## Values\n") + 1);
        List<Row> rows = new ArrayList<>();
        for (String line : table.lines().skip(1).dropWhile(String::isBlank).takeWhile(l -> l.startsWith("|")).toList()) {
            String[] cells = line.split("\\|");
            if (cells.length < 3 || !cells[1].contains("`")) {
                continue;
            }
            List<String> keys = new ArrayList<>();
            String parent = "";
            Matcher m = KEY.matcher(cells[1]);
            while (m.find()) {
                String key = m.group(1);
                if (key.contains(".") || keys.isEmpty()) {
                    parent = key.contains(".") ? key.substring(0, key.lastIndexOf('.')) : "";
                    keys.add(key);
                } else {
                    keys.add(parent.isEmpty() ? key : parent + "." + key);
                }
            }
            rows.add(new Row(keys, cells[2].strip()));
        }
        return rows;
    }

    /** Whether the table's key names this leaf: it is the leaf or above it, or the leaf is an empty map it describes the inside of. */
    static boolean covers(String key, String leaf, Object value) {
        String[] k = key.split("\\.");
        String[] l = leaf.split("\\.");
        boolean emptyMap = value instanceof Map<?, ?> map && map.isEmpty();
        int n = Math.min(k.length, l.length);
        if (k.length > l.length && !emptyMap) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (!k[i].equals("*") && !k[i].startsWith("<") && !k[i].equals(l[i])) {
                return false;
            }
        }
        return true;
    }

    @SuppressWarnings("unchecked")
    private static void flatten(String prefix, Object value, Map<String, Object> leaves) {
        if (value instanceof Map<?, ?> map && !map.isEmpty()) {
            ((Map<String, Object>) map).forEach((k, v) -> flatten(prefix.isEmpty() ? k : prefix + "." + k, v, leaves));
        } else {
            leaves.put(prefix, value);
        }
    }

    private static String show(Object value) {
        if (value instanceof String s) {
            return s.isEmpty() ? "\"\"" : s;
        }
        if (value instanceof List<?> list && list.isEmpty()) {
            return "[]";
        }
        if (value instanceof Map<?, ?> map && map.isEmpty()) {
            return "{}";
        }
        return String.valueOf(value);
    }
}
