package pillar.agent.configfs;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import pillar.api.value.InvalidValueException;

/**
 * Where an NVMe/TCP port listens: the {@code addr_*} attributes of {@code nvmet/ports/<id>/}. The
 * address is an IP literal (never a host name: nothing here resolves names), IPv4 in dotted-quad form
 * or IPv6 without a zone; the service ID is a TCP port, 1 to 65535. With {@code tls} the port admits
 * TLS 1.3 connections only ({@code addr_tsas} {@value #TLS13}, which makes {@code addr_treq} "required";
 * kernels from 6.7 with CONFIG_NVME_TARGET_TCP_TLS); without it the port is plaintext, as every port of a
 * kernel without {@code addr_tsas} is.
 */
public record PortAddress(AddressFamily family, String traddr, int trsvcid, boolean tls) {
    /** The only transport pillar-csi configures. */
    public static final String TRTYPE = "tcp";
    /** The attribute that sets the port's transport security, and its two values pillar-csi writes. */
    static final String TSAS = "addr_tsas";
    static final String TLS13 = "tls1.3";
    static final String PLAINTEXT = "none";

    private static final Pattern IPV4 = Pattern.compile(
            "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}");
    /** Starts with a hex digit or ':', so the JDK parses it as a literal and never looks it up. */
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:][0-9A-Fa-f:.]{1,44}");

    /** The {@code addr_adrfam} values the kernel accepts for TCP. */
    public enum AddressFamily {
        IPV4("ipv4"), IPV6("ipv6");

        private final String configfsValue;

        AddressFamily(String configfsValue) {
            this.configfsValue = configfsValue;
        }

        /** What {@code addr_adrfam} holds. */
        public String configfsValue() {
            return configfsValue;
        }
    }

    public PortAddress {
        if (family == null) {
            throw new InvalidValueException("adrfam", "must be ipv4 or ipv6");
        }
        if (family != familyOf(traddr)) {
            throw new InvalidValueException("traddr", "is not an " + family.configfsValue() + " address");
        }
        if (trsvcid < 1 || trsvcid > 65_535) {
            throw new InvalidValueException("trsvcid", "must be a TCP port, 1 to 65535, is " + trsvcid);
        }
    }

    /** A plaintext NVMe/TCP address; the family follows from the literal. */
    public static PortAddress tcp(String traddr, int trsvcid) {
        return tcp(traddr, trsvcid, false);
    }

    /** An NVMe/TCP address, TLS-only with {@code tls}; the family follows from the literal. */
    public static PortAddress tcp(String traddr, int trsvcid, boolean tls) {
        return new PortAddress(familyOf(traddr), traddr, trsvcid, tls);
    }

    /**
     * The family of an IP literal, or {@link InvalidValueException} when it is not one. IPv4 must be a
     * plain dotted quad (no leading zeros, no short forms); IPv6 must contain ':' (so it can never be
     * taken for a host name) and no zone.
     */
    static AddressFamily familyOf(String traddr) {
        if (traddr == null || traddr.isEmpty()) {
            throw new InvalidValueException("traddr", "must not be empty");
        }
        if (IPV4.matcher(traddr).matches()) {
            return AddressFamily.IPV4;
        }
        if (traddr.indexOf(':') >= 0 && IPV6_CHARS.matcher(traddr).matches()) {
            try {
                // A literal with ':' is parsed, never looked up.
                InetAddress.getByName(traddr);
                return AddressFamily.IPV6;
            } catch (UnknownHostException | IllegalArgumentException e) {
                // fall through
            }
        }
        throw new InvalidValueException("traddr",
                "must be an IPv4 address (a.b.c.d) or an IPv6 address without a zone, no host names");
    }

    /** The wanted {@code addr_*} values, in the order they are written. */
    Map<String, String> attributes() {
        Map<String, String> wanted = new LinkedHashMap<>();
        wanted.put("addr_trtype", TRTYPE);
        wanted.put("addr_adrfam", family.configfsValue());
        wanted.put("addr_traddr", traddr);
        wanted.put("addr_trsvcid", Integer.toString(trsvcid));
        if (tls) {
            wanted.put(TSAS, TLS13);
        }
        return wanted;
    }

    /** The attributes to read from a port to compare it with this address: {@link #attributes()} and {@value #TSAS}. */
    static List<String> compared() {
        return List.of("addr_trtype", "addr_adrfam", "addr_traddr", "addr_trsvcid", TSAS);
    }

    /** Whether a port whose attributes read {@code actual} listens at exactly this address, TLS or not alike. */
    boolean matches(Map<String, String> actual) {
        return changesFrom(actual).isEmpty();
    }

    /**
     * The attributes to write to turn a port whose {@code addr_*} files read {@code actual} into this
     * address, in write order; empty when the port already has it. A missing entry counts as "", and a
     * missing {@value #TSAS} (a kernel without TLS) as {@value #PLAINTEXT}.
     */
    List<AttributeChange> changesFrom(Map<String, String> actual) {
        List<AttributeChange> changes = new ArrayList<>();
        attributes().forEach((attribute, wanted) -> {
            String current = actual.getOrDefault(attribute, "");
            if (!current.equals(wanted)) {
                changes.add(new AttributeChange(attribute, current, wanted));
            }
        });
        String security = actual.getOrDefault(TSAS, "");
        if (!tls && !security.isEmpty() && !security.equals(PLAINTEXT)) {
            changes.add(new AttributeChange(TSAS, security, PLAINTEXT));
        }
        return changes;
    }

    @Override
    public String toString() {
        String host = family == AddressFamily.IPV6 ? "[" + traddr + "]" : traddr;
        return TRTYPE + "://" + host + ":" + trsvcid + (tls ? " (TLS)" : "");
    }
}
