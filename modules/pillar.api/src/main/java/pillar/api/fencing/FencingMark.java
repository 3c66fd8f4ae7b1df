package pillar.api.fencing;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import pillar.api.value.LifecycleUid;

/**
 * The agent's durable record for one volume: the lifecycle that owns it, the highest publication
 * generation seen, whether that lifecycle has ended (a tombstone, left by a delete), and the
 * lifecycles that owned the volume ID before and have ended.
 *
 * <p>The text form ({@link #encode()}, {@link #parse(String)}) is what the agent writes under its
 * {@code generations/} directory; parsing is strict so a damaged file is refused rather than guessed.
 */
public record FencingMark(LifecycleUid lifecycle, long generation, boolean ended, Set<LifecycleUid> retired) {
    private static final int FORMAT_VERSION = 1;

    public FencingMark {
        if (lifecycle == null || retired == null) {
            throw new IllegalArgumentException("lifecycle and retired must be set");
        }
        if (generation < 0) {
            throw new IllegalArgumentException("generation must not be negative");
        }
        retired = Set.copyOf(retired);
    }

    /** The first mark of a lifecycle. */
    public static FencingMark active(FencingToken token) {
        return new FencingMark(token.lifecycle(), token.generation(), false, Set.of());
    }

    /** Whether calls of this lifecycle were ever accepted and it has not ended. */
    public boolean isActive(LifecycleUid uid) {
        return !ended && lifecycle.equals(uid);
    }

    public String encode() {
        StringBuilder out = new StringBuilder();
        out.append("version=").append(FORMAT_VERSION).append('\n');
        out.append("lifecycle=").append(lifecycle.value()).append('\n');
        out.append("generation=").append(generation).append('\n');
        out.append("ended=").append(ended).append('\n');
        out.append("retired=").append(retired.stream().map(LifecycleUid::value).sorted().collect(Collectors.joining(",")))
                .append('\n');
        return out.toString();
    }

    /** Parses {@link #encode()}'s output; any other input throws {@link IllegalArgumentException}. */
    public static FencingMark parse(String text) {
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
