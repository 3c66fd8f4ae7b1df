package pillar.agent.configfs;

import java.math.BigInteger;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The kernel's {@code kstrtou16}/{@code kstrtou32} with base 0, by which nvmet reads the names of the
 * directories {@code ports/<id>} and {@code namespaces/<nsid>}: an optional '+', then "0x" and hex
 * digits, or "0" and octal digits, or decimal digits, and at most one trailing newline. So the kernel
 * accepts {@code ports/0x10} as port 16; pillar-csi itself writes decimal only.
 */
final class KernelNumbers {
    private static final Pattern SYNTAX = Pattern.compile("\\+?(?:0[xX]([0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))\n?");

    private KernelNumbers() {
    }

    /** Whether the kernel reads {@code text} as a number, whatever its size. */
    static boolean isNumber(String text) {
        return SYNTAX.matcher(text).matches();
    }

    /** The number the kernel reads in {@code text}, when it is one of at most {@code max}. */
    static OptionalLong parse(String text, long max) {
        Matcher m = SYNTAX.matcher(text);
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        BigInteger value;
        if (m.group(1) != null) {
            value = new BigInteger(m.group(1), 16);
        } else if (m.group(2) != null) {
            value = new BigInteger(m.group(2), 8);
        } else {
            value = new BigInteger(m.group(3), 10);
        }
        return value.compareTo(BigInteger.valueOf(max)) > 0 ? OptionalLong.empty() : OptionalLong.of(value.longValueExact());
    }
}
