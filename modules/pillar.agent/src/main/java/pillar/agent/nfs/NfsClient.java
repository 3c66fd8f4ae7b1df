package pillar.agent.nfs;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.regex.Pattern;

import pillar.api.value.InvalidValueException;

/**
 * One NFS client: a single IP address literal, never a host name, subnet or wildcard (docs/nfs.md
 * fact 4: an export wider than one node leaks). IPv4 in dotted decimal; IPv6 without a zone. Equal
 * clients have equal {@link #text()}, the one form exportfs is given and compares (case-insensitively).
 */
public record NfsClient(InetAddress address) {
    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

    /** The client of this literal; anything else is INVALID_ARGUMENT naming {@code field}. */
    public static NfsClient parse(String field, String literal) {
        if (literal == null || literal.isEmpty()) {
            throw new InvalidValueException(field, "must be an IP address literal, is empty");
        }
        if (IPV4.matcher(literal).matches()) {
            return new NfsClient(literal(literal));
        }
        if (literal.contains(":") && IPV6.matcher(literal).matches()) {
            try {
                InetAddress address = literal(literal);
                if (address instanceof Inet6Address) {
                    return new NfsClient(address);
                }
            } catch (IllegalArgumentException e) {
                // not a literal: refused below
            }
        }
        throw new InvalidValueException(field, "must be one IPv4 or IPv6 address literal (no name, subnet, wildcard or zone), is '"
                + literal.replaceAll("[^\\x20-\\x7e]", "?") + "'");
    }

    /** Parses a literal already checked to hold only digits, hex, '.' and ':': getByName then looks nothing up. */
    private static InetAddress literal(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** The address as exportfs is given it and lists it (Java's full IPv6 form, lower case). */
    public String text() {
        return address.getHostAddress();
    }

    /** Whether it is an IPv6 address (exportfs then takes {@code [address]:path}). */
    public boolean ipv6() {
        return address instanceof Inet6Address;
    }

    @Override
    public String toString() {
        return text();
    }
}
