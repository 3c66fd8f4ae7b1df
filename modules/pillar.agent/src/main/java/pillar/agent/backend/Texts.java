package pillar.agent.backend;

/** Text from outside (option keys, tool output) made safe and short for an error message. */
public final class Texts {
    private static final int MAX_PRINTABLE = 64;
    private static final int MAX_LINE = 300;

    private Texts() {
    }

    /** At most 64 code points, control characters escaped as {@code \xNN}. */
    public static String printable(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().limit(MAX_PRINTABLE).forEach(c -> {
            if (c < 0x20 || c == 0x7f) {
                out.append(String.format("\\x%02x", c));
            } else {
                out.appendCodePoint(c);
            }
        });
        return text.codePointCount(0, text.length()) > MAX_PRINTABLE ? out + "..." : out.toString();
    }

    /** A tool's output on one line: whitespace runs collapsed, cut after 300 characters. */
    public static String oneLine(String text) {
        String line = text.strip().replaceAll("\\s+", " ");
        return line.length() <= MAX_LINE ? line : line.substring(0, MAX_LINE) + "...";
    }
}
