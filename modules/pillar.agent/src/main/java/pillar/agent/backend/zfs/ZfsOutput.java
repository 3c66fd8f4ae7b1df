package pillar.agent.backend.zfs;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.Texts;

/**
 * Parses the scripted output of {@code zfs get -Hp} and {@code zfs list -Hp}: one line per row, the
 * columns separated by one tab, no header, exact numbers; a property that does not apply or a user
 * property that is not set prints {@code -}. Output of any other shape is
 * {@link BackendException.Kind#FAILED}: never guessed around.
 */
final class ZfsOutput {
    /** The value ZFS prints for "none" or "not set". */
    static final String UNSET = "-";
    /** The source {@code zfs get} prints for a property set on the dataset itself. */
    static final String LOCAL = "local";

    private ZfsOutput() {
    }

    /** The rows of {@code zfs list -Hp -o a,b,c}, each with exactly {@code columns} columns. */
    static List<List<String>> rows(String stdout, int columns) {
        List<List<String>> rows = new ArrayList<>();
        for (String line : stdout.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            List<String> row = Arrays.asList(line.split("\t", -1));
            if (row.size() != columns) {
                throw new BackendException(Kind.FAILED, "zfs printed a line with " + row.size() + " columns where " + columns
                        + " belong: '" + Texts.printable(line) + "'");
            }
            rows.add(List.copyOf(row));
        }
        return rows;
    }

    /** The properties of one dataset from {@code zfs get -Hp -o name,property,value ...}, in the order printed. */
    static Map<String, String> properties(String stdout, String dataset) {
        Map<String, String> properties = new LinkedHashMap<>();
        for (List<String> row : rows(stdout, 3)) {
            if (!row.get(0).equals(dataset)) {
                throw new BackendException(Kind.FAILED, "zfs get for " + dataset + " printed a row of " + Texts.printable(row.get(0)));
            }
            properties.put(row.get(1), row.get(2));
        }
        return properties;
    }

    /**
     * One property's value and where it comes from, from {@code zfs get -o ...,value,source}: the source is
     * {@code local} when set on the dataset itself, {@code inherited from <dataset>}, {@code default},
     * {@code received}, or {@code -} (read-only or not set).
     */
    record Property(String value, String source) {
        static final Property NONE = new Property(UNSET, UNSET);

        /** The value when set on the dataset itself ({@code local}), else "" (inherited, default or unset). */
        String localValue() {
            return source.equals(LOCAL) && !value.equals(UNSET) ? value : "";
        }
    }

    /**
     * The rows of {@code zfs get -Hp -o name,property,value,source ...} (for one dataset, or several with
     * {@code -r}), by dataset in the order printed, each dataset's properties by name.
     */
    static Map<String, Map<String, Property>> sourcedByDataset(String stdout) {
        Map<String, Map<String, Property>> datasets = new LinkedHashMap<>();
        for (List<String> row : rows(stdout, 4)) {
            datasets.computeIfAbsent(row.get(0), d -> new LinkedHashMap<>()).put(row.get(1), new Property(row.get(2), row.get(3)));
        }
        return datasets;
    }

    /** A numeric property printed with {@code -p}: exact bytes, or empty for {@code -}. */
    static OptionalLong bytes(String value) {
        if (value.equals(UNSET)) {
            return OptionalLong.empty();
        }
        try {
            long bytes = Long.parseLong(value);
            if (bytes < 0) {
                throw new NumberFormatException();
            }
            return OptionalLong.of(bytes);
        } catch (NumberFormatException e) {
            throw new BackendException(Kind.FAILED, "zfs printed '" + Texts.printable(value) + "' where a number of bytes belongs (run with -p?)");
        }
    }

    /** A numeric property that must be set. */
    static long requiredBytes(Map<String, String> properties, String property, String dataset) {
        String value = properties.get(property);
        if (value == null) {
            throw new BackendException(Kind.FAILED, "zfs get printed no " + property + " for " + dataset);
        }
        return bytes(value).orElseThrow(() -> new BackendException(Kind.FAILED, dataset + " has no " + property));
    }
}
