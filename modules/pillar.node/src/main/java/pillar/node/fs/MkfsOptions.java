package pillar.node.fs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import pillar.api.value.InvalidValueException;

/**
 * Extra mkfs arguments a volume carries (volume context {@code mkfsOptions}, space separated, e.g.
 * {@code "-m 0 -E lazy_itable_init=0"}), checked against a per-filesystem allow-list of options and
 * value grammars. They become separate arguments of an argument list, never a shell string. Options
 * that could overwrite something other than a blank device ({@code -F}, {@code -f}) or point mkfs at
 * other files ({@code -d}, {@code -p}, {@code -c}) are not on the list.
 */
public record MkfsOptions(List<String> arguments) {
    public static final MkfsOptions NONE = new MkfsOptions(List.of());
    private static final int MAX_LENGTH = 256;

    private static final Map<String, Pattern> EXT4 = Map.of(
            "-m", Pattern.compile("[0-9]|[1-4][0-9]|50"),
            "-i", Pattern.compile("[0-9]{4,8}"),
            "-I", Pattern.compile("128|256|512|1024"),
            "-b", Pattern.compile("1024|2048|4096"),
            "-N", Pattern.compile("[1-9][0-9]{0,9}"),
            "-E", Pattern.compile("(lazy_itable_init=[01]|lazy_journal_init=[01]|nodiscard|discard)"
                    + "(,(lazy_itable_init=[01]|lazy_journal_init=[01]|nodiscard|discard))*"),
            "-O", Pattern.compile("\\^?(metadata_csum|64bit|huge_file|dir_index|extent|flex_bg|quota|project)"
                    + "(,\\^?(metadata_csum|64bit|huge_file|dir_index|extent|flex_bg|quota|project))*"));
    private static final Set<String> EXT4_FLAGS = Set.of("-j");
    private static final Map<String, Pattern> XFS = Map.of(
            "-b", Pattern.compile("size=(512|1024|2048|4096|8192|16384|32768|65536)"),
            "-i", Pattern.compile("(size=(256|512|1024|2048)|maxpct=([0-9]|[1-9][0-9]|100))"),
            "-m", Pattern.compile("(reflink|crc|finobt|bigtime|inobtcount)=[01]"
                    + "(,(reflink|crc|finobt|bigtime|inobtcount)=[01])*"),
            "-l", Pattern.compile("size=[1-9][0-9]{0,5}[mM]"),
            "-d", Pattern.compile("(agcount=[1-9][0-9]{0,3}|su=[1-9][0-9]{0,4}[kK],sw=[1-9][0-9]?)"));
    private static final Set<String> XFS_FLAGS = Set.of("-K");

    public MkfsOptions {
        arguments = List.copyOf(arguments);
    }

    /** The options of {@code text} for {@code fsType}; empty text means none. */
    public static MkfsOptions parse(String text, FsType fsType) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        if (text.length() > MAX_LENGTH) {
            throw new InvalidValueException("mkfsOptions", "must be at most " + MAX_LENGTH + " characters");
        }
        if (!text.chars().allMatch(c -> c == ' ' || (c > 0x20 && c < 0x7f))) {
            throw new InvalidValueException("mkfsOptions", "must be printable ASCII separated by spaces");
        }
        Map<String, Pattern> valued = fsType == FsType.EXT4 ? EXT4 : XFS;
        Set<String> flags = fsType == FsType.EXT4 ? EXT4_FLAGS : XFS_FLAGS;
        List<String> tokens = List.of(text.strip().split(" +"));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < tokens.size(); i++) {
            String option = tokens.get(i);
            if (flags.contains(option)) {
                out.add(option);
                continue;
            }
            Pattern grammar = valued.get(option);
            if (grammar == null) {
                throw new InvalidValueException("mkfsOptions", "option " + describe(option) + " is not allowed for "
                        + fsType + " (allowed: " + String.join(" ", new java.util.TreeSet<>(valued.keySet())) + " "
                        + String.join(" ", flags) + ")");
            }
            if (i + 1 >= tokens.size()) {
                throw new InvalidValueException("mkfsOptions", "option " + option + " needs a value");
            }
            String value = tokens.get(++i);
            if (!grammar.matcher(value).matches()) {
                throw new InvalidValueException("mkfsOptions", "value " + describe(value) + " of " + option
                        + " is not allowed for " + fsType);
            }
            out.add(option);
            out.add(value);
        }
        return new MkfsOptions(out);
    }

    private static String describe(String token) {
        return token.length() <= 64 ? "'" + token + "'" : "of " + token.length() + " characters";
    }
}
