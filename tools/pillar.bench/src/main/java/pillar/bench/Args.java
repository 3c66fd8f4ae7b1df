package pillar.bench;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code --key=value} arguments (and bare {@code --flag}s, read as "true"); anything else is refused. */
public final class Args {
    private final Map<String, String> values = new LinkedHashMap<>();

    private Args() {
    }

    public static Args parse(String... args) {
        Args parsed = new Args();
        for (String arg : args) {
            if (!arg.startsWith("--") || arg.length() < 3) {
                throw new IllegalArgumentException("arguments are --key=value, not '" + arg + "'");
            }
            int eq = arg.indexOf('=');
            parsed.values.put(eq < 0 ? arg.substring(2) : arg.substring(2, eq), eq < 0 ? "true" : arg.substring(eq + 1));
        }
        return parsed;
    }

    public String get(String key) {
        String value = values.get(key);
        if (value == null) {
            throw new IllegalArgumentException("--" + key + " is required");
        }
        return value;
    }

    public String get(String key, String fallback) {
        return values.getOrDefault(key, fallback);
    }

    public int integer(String key) {
        return Integer.parseInt(get(key));
    }

    public int integer(String key, int fallback) {
        return values.containsKey(key) ? integer(key) : fallback;
    }

    public long number(String key, long fallback) {
        return values.containsKey(key) ? Long.parseLong(get(key)) : fallback;
    }

    public Path path(String key) {
        return Path.of(get(key)).toAbsolutePath();
    }

    public boolean flag(String key) {
        return Boolean.parseBoolean(values.getOrDefault(key, "false"));
    }
}
