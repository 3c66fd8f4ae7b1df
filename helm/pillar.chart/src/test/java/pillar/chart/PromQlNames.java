package pillar.chart;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series names a PromQL expression reads: each identifier that is neither a function (followed
 * by {@code (}), nor a keyword or an aggregation operator, nor a label (inside {@code {...}}, or the list of {@code by},
 * {@code without}, {@code on}, {@code ignoring}, {@code group_left}, {@code group_right}). A name is
 * taken as written: a histogram {@code x} is read as {@code x_bucket}, {@code x_count} or
 * {@code x_sum}, a counter as {@code x_total}, and the bare {@code x} names no series.
 */
final class PromQlNames {
    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'");
    private static final Pattern MATCHERS = Pattern.compile("\\{[^}]*}");
    private static final Pattern RANGE = Pattern.compile("\\[[^]]*]");
    private static final Pattern GROUPING = Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?");
    /** PromQL's keywords, binary operators written as words and aggregation operators ({@code sum by (le) (...)}). */
    private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right", "offset",
            "bool", "and", "or", "unless", "atan2", "inf", "nan", "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count",
            "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio");

    private PromQlNames() {
    }

    static Set<String> of(String expr) {
        String bare = STRING.matcher(expr).replaceAll("\"\"");
        bare = MATCHERS.matcher(bare).replaceAll("{}");
        bare = RANGE.matcher(bare).replaceAll("[]");
        bare = GROUPING.matcher(bare).replaceAll("$1()");
        Set<String> names = new LinkedHashSet<>();
        Matcher identifier = IDENTIFIER.matcher(bare);
        while (identifier.find()) {
            String name = identifier.group(1);
            boolean call = identifier.group(2) != null;
            if (!call && !KEYWORDS.contains(name.toLowerCase(Locale.ROOT))) {
                names.add(name);
            }
        }
        return names;
    }
}
