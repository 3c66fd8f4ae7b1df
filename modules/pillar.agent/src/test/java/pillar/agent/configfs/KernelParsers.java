package pillar.agent.configfs;

import static pillar.agent.configfs.KernelError.Code.EINVAL;
import static pillar.agent.configfs.KernelError.Code.ERANGE;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the kernel reads what is written to an nvmet attribute, for {@link FakeNvmet}: the C string the
 * store function sees, {@code sysfs_streq}, {@code kstrtobool}, {@code kstrto*} (base 0, see
 * {@link KernelNumbers}), {@code sscanf("%s")}, and the address parsers of {@code inet_pton_with_scope}.
 */
final class KernelParsers {
    static final long U32_MAX = 0xFFFF_FFFFL;
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private KernelParsers() {
    }

    /** The store functions see a C string: what follows a NUL is not there. */
    static String cString(String page) {
        int nul = page.indexOf('\0');
        return nul < 0 ? page : page.substring(0, nul);
    }

    /** Up to the first newline ({@code strcspn(page, "\n")}). */
    static String firstLine(String page) {
        String s = cString(page);
        int newline = s.indexOf('\n');
        return newline < 0 ? s : s.substring(0, newline);
    }

    /** The first whitespace-separated word ({@code sscanf(page, "%s\n", ...)}), or EINVAL when there is none. */
    static String firstWord(String page) throws KernelError {
        String word = cString(page).strip().split("\\s+", 2)[0];
        if (word.isEmpty()) {
            throw new KernelError(EINVAL);
        }
        return word;
    }

    /** Equal, or equal but for one trailing newline on either side. */
    static boolean sysfsStreq(String a, String b) {
        String s1 = cString(a);
        String s2 = cString(b);
        return s1.equals(s2) || s1.equals(s2 + "\n") || s2.equals(s1 + "\n");
    }

    /** y/Y/1 and on are true, n/N/0 and off false, by the first characters only; anything else EINVAL. */
    static boolean kstrtobool(String page) throws KernelError {
        String s = cString(page);
        char first = s.isEmpty() ? 0 : s.charAt(0);
        char second = s.length() < 2 ? 0 : Character.toLowerCase(s.charAt(1));
        if (first == 'y' || first == 'Y' || first == '1') {
            return true;
        }
        if (first == 'n' || first == 'N' || first == '0') {
            return false;
        }
        if ((first == 'o' || first == 'O') && (second == 'n' || second == 'f')) {
            return second == 'n';
        }
        throw new KernelError(EINVAL);
    }

    static long kstrtou32(String page) throws KernelError {
        String s = cString(page);
        if (!KernelNumbers.isNumber(s)) {
            throw new KernelError(EINVAL);
        }
        return KernelNumbers.parse(s, U32_MAX).orElseThrow(() -> new KernelError(ERANGE));
    }

    static long kstrtoint(String page) throws KernelError {
        String s = cString(page);
        boolean negative = s.startsWith("-");
        String digits = negative ? s.substring(1) : s;
        if (digits.startsWith("+") || !KernelNumbers.isNumber(digits)) {
            throw new KernelError(EINVAL);
        }
        long magnitude = KernelNumbers.parse(digits, negative ? 1L << 31 : Integer.MAX_VALUE)
                .orElseThrow(() -> new KernelError(ERANGE));
        return negative ? -magnitude : magnitude;
    }

    /** {@code device_nguid}: 16 pairs of hex digits, each pair optionally followed by '-' or ':'. */
    static String nguid(String page) throws KernelError {
        String s = cString(page);
        byte[] bytes = new byte[16];
        int p = 0;
        for (int i = 0; i < 16; i++) {
            if (p + 2 > s.length() || Character.digit(s.charAt(p), 16) < 0 || Character.digit(s.charAt(p + 1), 16) < 0) {
                throw new KernelError(EINVAL);
            }
            bytes[i] = (byte) Integer.parseInt(s.substring(p, p + 2), 16);
            p += 2;
            if (p < s.length() && (s.charAt(p) == '-' || s.charAt(p) == ':')) {
                p++;
            }
        }
        return uuid(bytes);
    }

    /** The kernel's %pUb: 8-4-4-4-12 lower-case hex digits. */
    static String uuid(byte[] b) {
        String hex = HexFormat.of().formatHex(b);
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20);
    }

    static String bit(boolean value) {
        return value ? "1" : "0";
    }

    /** in4_pton: four decimal parts of at most three digits, each at most 255. */
    static InetAddress ipv4(String text) throws KernelError {
        Matcher m = IPV4.matcher(text);
        if (!m.matches()) {
            throw new KernelError(EINVAL);
        }
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            int part = Integer.parseInt(m.group(i + 1));
            if (part > 255) {
                throw new KernelError(EINVAL);
            }
            bytes[i] = (byte) part;
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new KernelError(EINVAL);
        }
    }

    /** in6_pton (without a scope). */
    static InetAddress ipv6(String text) throws KernelError {
        if (!IPV6.matcher(text).matches()) {
            throw new KernelError(EINVAL);
        }
        try {
            return InetAddress.getByName(text); // a literal with ':' is parsed, never looked up
        } catch (UnknownHostException | IllegalArgumentException e) {
            throw new KernelError(EINVAL);
        }
    }
}
