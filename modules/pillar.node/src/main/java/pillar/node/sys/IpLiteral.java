package pillar.node.sys;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

import pillar.api.value.InvalidValueException;

/**
 * Checks that a value is an IPv4 or IPv6 address literal, never a host name (no lookup is ever made:
 * only a string with ':' reaches {@link InetAddress}, which parses such a string without resolving
 * it) and never an IPv6 zone. The one check of every address that reaches a kernel option string.
 */
public final class IpLiteral {
    private static final Pattern IPV4 = Pattern.compile(
            "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-fA-F:.]{2,45}");

    private IpLiteral() {
    }

    /** @throws InvalidValueException naming {@code field} unless {@code value} is an IP literal */
    public static void check(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidValueException(field, "must not be empty");
        }
        if (!isIpv4(value) && !isIpv6(value)) {
            throw new InvalidValueException(field, "must be an IPv4 or IPv6 address literal (no host names, no zone)");
        }
    }

    /** Whether {@code value} is an IPv6 literal (then written in brackets next to a port or a path). */
    public static boolean isIpv6(String value) {
        if (value.indexOf(':') < 0 || !IPV6_CHARS.matcher(value).matches()) {
            return false;
        }
        try {
            return InetAddress.getByName(value) instanceof Inet6Address; // a literal with ':' never triggers a lookup
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** Whether two literals name the same address (an IPv6 one in any of its spellings, as the kernel shortens it). */
    public static boolean same(String a, String b) {
        if (a.equals(b)) {
            return true;
        }
        if (!isIpv6(a) || !isIpv6(b)) {
            return false;
        }
        try {
            return InetAddress.getByName(a).equals(InetAddress.getByName(b));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static boolean isIpv4(String value) {
        return IPV4.matcher(value).matches();
    }
}
