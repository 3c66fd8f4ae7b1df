package pillar.agent.backend.zfs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.Texts;

/**
 * The volume options a zvol accepts, checked against an allow-list before any command runs. Keys:
 * <ul>
 *   <li>{@code sparse}: {@code true} or {@code false} (default): {@code zfs create -s}, no refreservation;</li>
 *   <li>{@code volblocksize}: a power of two from 4K to 128K, as bytes ({@code 16384}) or with a K
 *       ({@code 16K}); default {@value #DEFAULT_VOLBLOCKSIZE} bytes, always passed explicitly so that the
 *       size rounding never depends on the installed OpenZFS version's default (8K before 2.2, 16K since);</li>
 *   <li>{@code compression}: one of {@link #COMPRESSION}; unset inherits from the parent dataset.</li>
 * </ul>
 * Anything else, including ZFS properties that are not listed, is INVALID_ARGUMENT.
 */
record ZfsOptions(boolean sparse, long volblocksize, Optional<String> compression) {
    static final long DEFAULT_VOLBLOCKSIZE = 16 * 1024;
    static final Set<String> KEYS = Set.of("sparse", "volblocksize", "compression");
    static final Set<String> COMPRESSION = Set.of("on", "off", "lz4", "zstd", "gzip", "zle");
    private static final long MIN_VOLBLOCKSIZE = 4 * 1024;
    private static final long MAX_VOLBLOCKSIZE = 128 * 1024;
    private static final Pattern BLOCKSIZE = Pattern.compile("([0-9]{1,7})([kK])?");

    static final ZfsOptions DEFAULTS = new ZfsOptions(false, DEFAULT_VOLBLOCKSIZE, Optional.empty());

    static ZfsOptions parse(Map<String, String> options) {
        List<String> unknown = new ArrayList<>();
        for (String key : options.keySet()) {
            if (key == null || !KEYS.contains(key)) {
                unknown.add(key == null ? "null" : "'" + Texts.printable(key) + "'");
            }
        }
        if (!unknown.isEmpty()) {
            throw new BackendException(Kind.INVALID, "zfs backends accept the volume options " + KEYS.stream().sorted().toList()
                    + "; refused " + unknown.stream().sorted().toList());
        }
        boolean sparse = switch (value(options, "sparse").orElse("false")) {
            case "true" -> true;
            case "false" -> false;
            default -> throw invalid("sparse", options.get("sparse"), "true or false");
        };
        long volblocksize = value(options, "volblocksize").map(ZfsOptions::blockSize).orElse(DEFAULT_VOLBLOCKSIZE);
        Optional<String> compression = value(options, "compression");
        if (compression.isPresent() && !COMPRESSION.contains(compression.get())) {
            throw invalid("compression", compression.get(), "one of " + COMPRESSION.stream().sorted().toList());
        }
        return new ZfsOptions(sparse, volblocksize, compression);
    }

    private static Optional<String> value(Map<String, String> options, String key) {
        if (!options.containsKey(key)) {
            return Optional.empty();
        }
        String value = options.get(key);
        if (value == null) {
            throw invalid(key, null, "a value");
        }
        return Optional.of(value);
    }

    private static long blockSize(String text) {
        Matcher m = BLOCKSIZE.matcher(text);
        if (m.matches()) {
            long bytes = Long.parseLong(m.group(1)) * (m.group(2) == null ? 1 : 1024);
            if (bytes >= MIN_VOLBLOCKSIZE && bytes <= MAX_VOLBLOCKSIZE && Long.bitCount(bytes) == 1) {
                return bytes;
            }
        }
        throw invalid("volblocksize", text, "a power of two from 4K to 128K (4096 to 131072 bytes)");
    }

    private static BackendException invalid(String key, String value, String expected) {
        return new BackendException(Kind.INVALID, "volume option " + key + " must be " + expected + ", is "
                + (value == null ? "null" : "'" + Texts.printable(value) + "'"));
    }
}
