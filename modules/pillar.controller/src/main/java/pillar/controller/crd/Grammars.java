package pillar.controller.crd;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * The grammars of the identifiers the Pillar resources carry. The same expressions are the
 * schema's {@code pattern}s (annotation values must be constants) and the reconcilers' checks,
 * which also bound the length and never echo a rejected value's control characters.
 */
public final class Grammars {
    /** A Kubernetes object name (RFC 1123 subdomain), at most 253 characters. */
    public static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
    /** An RFC 1123 label: an agent's backend name. */
    public static final String DNS_LABEL = "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$";
    /** A ZFS pool, LVM volume group or thin pool name as zfs and lvm both accept it; never a leading '-'. */
    public static final String POOL_NAME = "^[A-Za-z0-9][A-Za-z0-9_.+-]{0,126}$";
    /** A ZFS dataset path below the pool, like {@code k8s} or {@code k8s/volumes}. */
    public static final String DATASET_PATH = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,126}(/[A-Za-z0-9][A-Za-z0-9_.:-]{0,126}){0,15}$";
    /**
     * The schema's loose form of a host: an IP literal or a DNS name. The reconciler checks the
     * exact grammar ({@link #isHost(String)}).
     */
    public static final String HOST = "^[A-Za-z0-9:]([A-Za-z0-9.:-]{0,251}[A-Za-z0-9:])?$";
    /** The schema's loose form of an IP literal; {@link #isIpLiteral(String)} is exact. */
    public static final String IP_LITERAL = "^[0-9A-Fa-f:.]{2,45}$";
    /** One mount option: letters, digits and {@code _.=:+/-}; never a comma (one option per item). */
    public static final String MOUNT_OPTION = "^[A-Za-z0-9][A-Za-z0-9_.=:+/-]{0,127}$";
    /**
     * A ZFS volblocksize: a power of two from 4K to 128K, as zfs writes it. The agent refuses smaller
     * ones (a zvol below 4K blocks is never what a filesystem wants).
     */
    public static final String VOLBLOCKSIZE = "^(4K|8K|16K|32K|64K|128K)$";
    /** Extra mkfs options: words of letters, digits and {@code -=,._:} separated by single spaces. */
    public static final String MKFS_OPTIONS = "^[A-Za-z0-9=,._:-]{1,64}( [A-Za-z0-9=,._:-]{1,64}){0,15}$";

    private static final Pattern SUBDOMAIN = Pattern.compile(DNS_SUBDOMAIN);
    private static final Pattern LABEL = Pattern.compile(DNS_LABEL);
    private static final Pattern IPV4 = Pattern.compile(
            "^((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$");
    private static final Pattern IPV6_CHARS = Pattern.compile("^[0-9A-Fa-f:.]{2,45}$");

    private Grammars() {
    }

    /** A Kubernetes object name: an RFC 1123 subdomain of at most 253 characters. */
    public static boolean isObjectName(String value) {
        return value != null && value.length() <= 253 && SUBDOMAIN.matcher(value).matches();
    }

    /** An RFC 1123 label of at most 63 characters. */
    public static boolean isLabel(String value) {
        return value != null && LABEL.matcher(value).matches();
    }

    /** Matches {@code regex} completely; {@code null} never matches. */
    public static boolean matches(String regex, String value) {
        return value != null && Pattern.compile(regex).matcher(value).matches();
    }

    /** 0.0.0.0 or :: (every address of the host): an address to bind, never one to dial. */
    public static boolean isWildcard(String ip) {
        if (!isIpLiteral(ip)) {
            return false;
        }
        try {
            return InetAddress.getByName(ip).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** An IPv4 or IPv6 address literal, never a name (no DNS lookup is made). */
    public static boolean isIpLiteral(String value) {
        if (value == null) {
            return false;
        }
        if (IPV4.matcher(value).matches()) {
            return true;
        }
        if (!value.contains(":") || !IPV6_CHARS.matcher(value).matches()) {
            return false;
        }
        try {
            // only hex digits, ':' and '.': parsed as a literal, never resolved
            InetAddress.getByName(value);
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /** An IP literal, or a DNS name of at most 253 characters (lower or upper case). */
    public static boolean isHost(String value) {
        if (isIpLiteral(value)) {
            return true;
        }
        return value != null && !value.contains(":") && isObjectName(value.toLowerCase(java.util.Locale.ROOT))
                && !value.endsWith(".");
    }

    /**
     * A value as it may appear in a message: at most 64 characters, control and non-ASCII
     * characters replaced by {@code ?}, quoted.
     */
    public static String printable(String value) {
        if (value == null) {
            return "(unset)";
        }
        StringBuilder out = new StringBuilder("'");
        for (int i = 0; i < value.length() && i < 64; i++) {
            char c = value.charAt(i);
            out.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return out.append(value.length() > 64 ? "...'" : "'").toString();
    }
}
