package pillar.agent.fencing;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import pillar.api.fencing.FencingMark;
import pillar.api.value.LifecycleUid;

/**
 * The text form of a {@link FencingMark} in the agent's {@code generations/} files: one
 * {@code key=value} line each for version, lifecycle, generation, ended and retired (sorted,
 * comma-separated). Parsing is strict, so a damaged file is refused rather than guessed.
 */
final class MarkFormat {
    private static final int FORMAT_VERSION = 1;

    private MarkFormat() {
    }

    static String encode(FencingMark mark) {
        StringBuilder out = new StringBuilder();
        out.append("version=").append(FORMAT_VERSION).append('\n');
        out.append("lifecycle=").append(mark.lifecycle().value()).append('\n');
        out.append("generation=").append(mark.generation()).append('\n');
        out.append("ended=").append(mark.ended()).append('\n');
        out.append("retired=")
                .append(mark.retired().stream().map(LifecycleUid::value).sorted().collect(Collectors.joining(",")))
                .append('\n');
        return out.toString();
    }

    /** Parses {@link #encode}'s output; any other input throws {@link IllegalArgumentException}. */
    static FencingMark parse(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0 || fields.put(line.substring(0, eq), line.substring(eq + 1)) != null) {
                throw new IllegalArgumentException("fencing mark: malformed or repeated line");
            }
        }
        if (!fields.keySet().equals(Set.of("version", "lifecycle", "generation", "ended", "retired"))) {
            throw new IllegalArgumentException("fencing mark: expected version, lifecycle, generation, ended, retired; got "
                    + fields.keySet());
        }
        if (!String.valueOf(FORMAT_VERSION).equals(fields.get("version"))) {
            throw new IllegalArgumentException("fencing mark: unknown format version " + fields.get("version"));
        }
        String ended = fields.get("ended");
        if (!ended.equals("true") && !ended.equals("false")) {
            throw new IllegalArgumentException("fencing mark: ended must be true or false");
        }
        long generation;
        try {
            generation = Long.parseLong(fields.get("generation"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("fencing mark: generation is not a number", e);
        }
        String retired = fields.get("retired");
        Set<LifecycleUid> retiredSet = retired.isEmpty() ? Set.of()
                : Arrays.stream(retired.split(",")).map(LifecycleUid::of).collect(Collectors.toSet());
        return new FencingMark(LifecycleUid.of(fields.get("lifecycle")), generation, Boolean.parseBoolean(ended),
                retiredSet);
    }
}
