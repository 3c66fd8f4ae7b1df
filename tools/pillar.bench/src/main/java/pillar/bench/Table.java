package pillar.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A Markdown table whose columns are padded, so the same text reads well in a terminal and renders
 * in docs/benchmarks.md. Cells are plain text; '|' in a cell is escaped.
 */
public final class Table {
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(String... headers) {
        this.headers = List.of(headers);
    }

    public Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("a row of " + headers.size() + " cells expected, got " + Arrays.toString(cells));
        }
        rows.add(Arrays.stream(cells).map(c -> String.valueOf(c).replace("|", "\\|")).toList());
        return this;
    }

    public String markdown() {
        int[] width = new int[headers.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = Math.max(3, headers.get(i).length());
            for (List<String> row : rows) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        StringBuilder out = new StringBuilder();
        line(out, headers, width);
        out.append('|');
        for (int w : width) {
            out.append('-').append("-".repeat(w)).append("-|");
        }
        out.append('\n');
        rows.forEach(row -> line(out, row, width));
        return out.toString();
    }

    private static void line(StringBuilder out, List<String> cells, int[] width) {
        out.append('|');
        for (int i = 0; i < width.length; i++) {
            out.append(' ').append(cells.get(i)).append(" ".repeat(width[i] - cells.get(i).length())).append(" |");
        }
        out.append('\n');
    }
}
