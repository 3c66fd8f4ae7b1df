package pillar.agent.export;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import pillar.agent.configfs.HostAuth;
import pillar.agent.configfs.PortAddress;
import pillar.api.value.DhchapSecret;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.api.value.VolumeId;

/**
 * The durable record of one volume's export: what the agent re-applies to configfs after a restart
 * or a reboot (the kernel forgets the target configuration), and the source of truth drift is
 * measured against.
 *
 * @param volume       the exported volume
 * @param backend      the backend it lives on
 * @param device       the block device the namespace points at
 * @param address      where the port listens
 * @param aclEnabled   true: only {@code allowedHosts} may connect; false: any host
 * @param allowedHosts the host NQNs admitted when {@code aclEnabled}
 * @param authRequired every allowed host must authenticate in-band (DH-HMAC-CHAP)
 * @param auth         the keys of the allowed hosts that authenticate, a subset of {@code allowedHosts};
 *                     secrets: the record is written readable by its owner only and never logged
 * @param psks         on a TLS port, each allowed host's pre-shared key (secrets, as {@code auth})
 */
public record ExportRecord(VolumeId volume, String backend, Path device, PortAddress address, boolean aclEnabled,
                           Set<Nqn> allowedHosts, boolean authRequired, Map<Nqn, RecordedAuth> auth,
                           Map<Nqn, TlsPsk> psks)
        implements VolumeExport {
    /** The NQN prefix of every subsystem pillar-csi creates; the rest of the NQN is the volume ID. */
    public static final String NQN_PREFIX = "nqn.2024-06.io.pillar-csi:";

    public ExportRecord {
        if (!device.isAbsolute()) {
            throw new IllegalArgumentException("device must be an absolute path, is " + device);
        }
        allowedHosts = Set.copyOf(allowedHosts);
        auth = Map.copyOf(auth);
        if (!allowedHosts.containsAll(auth.keySet())) {
            throw new IllegalArgumentException("keys recorded for a host that is not allowed");
        }
        psks = Map.copyOf(psks);
        if (!allowedHosts.containsAll(psks.keySet())) {
            throw new IllegalArgumentException("TLS keys recorded for a host that is not allowed");
        }
        if (!psks.isEmpty() && !address.tls()) {
            throw new IllegalArgumentException("TLS keys recorded for a plaintext port");
        }
    }

    /** An export without TLS keys (yet). */
    public ExportRecord(VolumeId volume, String backend, Path device, PortAddress address, boolean aclEnabled,
                        Set<Nqn> allowedHosts, boolean authRequired, Map<Nqn, RecordedAuth> auth) {
        this(volume, backend, device, address, aclEnabled, allowedHosts, authRequired, auth, Map.of());
    }

    /** An export without in-band authentication. */
    public ExportRecord(VolumeId volume, String backend, Path device, PortAddress address, boolean aclEnabled,
                        Set<Nqn> allowedHosts) {
        this(volume, backend, device, address, aclEnabled, allowedHosts, false, Map.of());
    }

    /** The stable subsystem NQN of a volume, derived from its validated ID. */
    public static Nqn subsystemNqn(VolumeId volume) {
        return Nqn.of(NQN_PREFIX + volume.value());
    }

    /**
     * The volume a pillar-csi subsystem is named after ({@link #subsystemNqn}'s inverse).
     *
     * @throws IllegalArgumentException when the name is not {@link #NQN_PREFIX} and a valid volume ID
     */
    public static VolumeId volumeOf(Nqn subsystem) {
        if (!subsystem.value().startsWith(NQN_PREFIX)) {
            throw new IllegalArgumentException(subsystem + " does not start with " + NQN_PREFIX);
        }
        return VolumeId.of(subsystem.value().substring(NQN_PREFIX.length()));
    }

    public Nqn subsystem() {
        return subsystemNqn(volume);
    }

    public ExportRecord withDevice(Path newDevice) {
        return new ExportRecord(volume, backend, newDevice, address, aclEnabled, allowedHosts, authRequired, auth, psks);
    }

    /** The record with exactly {@code hosts} allowed; the keys of hosts no longer allowed are dropped. */
    public ExportRecord withAllowedHosts(Set<Nqn> hosts) {
        Map<Nqn, RecordedAuth> kept = new HashMap<>(auth);
        kept.keySet().retainAll(hosts);
        Map<Nqn, TlsPsk> keptPsks = new HashMap<>(psks);
        keptPsks.keySet().retainAll(hosts);
        return new ExportRecord(volume, backend, device, address, aclEnabled, hosts, authRequired, kept, keptPsks);
    }

    /** The record with {@code host} allowed and its TLS key {@code psk} (a new one replaces the old). */
    public ExportRecord withHostPsk(Nqn host, TlsPsk psk) {
        Set<Nqn> hosts = new HashSet<>(allowedHosts);
        hosts.add(host);
        Map<Nqn, TlsPsk> all = new HashMap<>(psks);
        all.put(host, psk);
        return new ExportRecord(volume, backend, device, address, aclEnabled, hosts, authRequired, auth, all);
    }

    /** The record with {@code host} allowed and authenticating with {@code keys}. */
    public ExportRecord withHostAuth(Nqn host, RecordedAuth keys) {
        Set<Nqn> hosts = new HashSet<>(allowedHosts);
        hosts.add(host);
        Map<Nqn, RecordedAuth> all = new HashMap<>(auth);
        all.put(host, keys);
        return new ExportRecord(volume, backend, device, address, aclEnabled, hosts, authRequired, all, psks);
    }

    /** The keys each authenticating host should have now: this record's, or a newer set {@code newest} holds. */
    public Map<Nqn, HostAuth> keys(Map<Nqn, RecordedAuth> newest) {
        Map<Nqn, HostAuth> keys = new HashMap<>();
        auth.forEach((host, recorded) -> {
            RecordedAuth other = newest.get(host);
            keys.put(host, (other != null && other.since().isAfter(recorded.since()) ? other : recorded).auth());
        });
        return keys;
    }

    /** Whether {@code other} exports the same device the same way (its hosts and keys aside). */
    public boolean sameExport(ExportRecord other) {
        return backend.equals(other.backend) && device.equals(other.device) && address.equals(other.address)
                && aclEnabled == other.aclEnabled && authRequired == other.authRequired;
    }

    @Override
    public String describe() {
        return address + (aclEnabled ? " with ACL" : " open to any host") + (authRequired ? " and DH-HMAC-CHAP" : "")
                + " on " + device;
    }

    @Override
    public String toString() {
        return "ExportRecord[" + volume + " on " + backend + ", " + device + ", " + address + ", acl " + aclEnabled
                + ", hosts " + allowedHosts + ", auth " + (authRequired ? "required" : "off") + ", keys for "
                + auth.keySet() + ", TLS keys for " + psks.keySet() + "]";
    }

    /** The port's TLS: {@code tls=true}, absent (every record of a plaintext port, and those before TLS) false. */
    private static boolean tls(Properties p) {
        String value = p.getProperty("tls", "false");
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("export record: tls must be true or false");
        }
        return value.equals("true");
    }

    String encode() {
        return "version=2\n"
                + "volume=" + volume.value() + "\n"
                + "backend=" + backend + "\n"
                + "device=" + device + "\n"
                + "traddr=" + address.traddr() + "\n"
                + "trsvcid=" + address.trsvcid() + "\n"
                + (address.tls() ? "tls=true\n" : "")
                + "acl=" + aclEnabled + "\n"
                + "hosts=" + allowedHosts.stream().map(Nqn::value).sorted().collect(Collectors.joining(",")) + "\n"
                + "auth-required=" + authRequired + "\n"
                + "auth=" + auth.entrySet().stream().sorted(Map.Entry.comparingByKey(Comparator.comparing(Nqn::value)))
                        .map(e -> encode(e.getKey(), e.getValue())).collect(Collectors.joining(",")) + "\n"
                + (psks.isEmpty() ? "" : "psk=" + psks.entrySet().stream()
                        .sorted(Map.Entry.comparingByKey(Comparator.comparing(Nqn::value)))
                        .map(e -> e.getKey().value() + " " + e.getValue().value()).collect(Collectors.joining(",")) + "\n");
    }

    /** {@code <host> <since ms> <hash> <group> <host key> <controller key or ->}: no field holds ' ' or ','. */
    private static String encode(Nqn host, RecordedAuth recorded) {
        HostAuth a = recorded.auth();
        return String.join(" ", host.value(), Long.toString(recorded.since().toEpochMilli()), a.hash(), a.dhGroup(),
                a.hostKey().value(), a.controllerKey().map(DhchapSecret::value).orElse("-"));
    }

    /**
     * Parses {@link #encode()} (version 2) or a version 1 record (written before authentication, read as
     * without it); anything else (a damaged file) throws {@link IllegalArgumentException}, whose message
     * never holds a secret.
     */
    static ExportRecord parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String version = p.getProperty("version");
        // version 2 with a TLS port adds tls (and psk once a host has a key): an agent of before reads such a
        // record as damaged and refuses its volume, rather than export it in plaintext
        int tlsFields = (p.containsKey("tls") ? 1 : 0) + (p.containsKey("psk") ? 1 : 0);
        if (!("1".equals(version) && p.size() == 8) && !("2".equals(version) && p.size() == 10 + tlsFields)) {
            throw new IllegalArgumentException("export record: unknown version or missing fields");
        }
        boolean acl = bool(p, "acl");
        String hosts = p.getProperty("hosts");
        Set<Nqn> allowed = hosts.isEmpty() ? Set.of()
                : Arrays.stream(hosts.split(",")).map(Nqn::of).collect(Collectors.toSet());
        int port;
        try {
            port = Integer.parseInt(p.getProperty("trsvcid"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("export record: trsvcid is not a number", e);
        }
        boolean authRequired = version.equals("2") && bool(p, "auth-required");
        Map<Nqn, RecordedAuth> auth = new HashMap<>();
        String entries = p.getProperty("auth", "");
        if (!entries.isEmpty()) {
            for (String entry : entries.split(",")) {
                String[] f = entry.split(" ");
                if (f.length != 6) {
                    throw new IllegalArgumentException("export record: an auth entry does not have 6 fields");
                }
                try {
                    HostAuth keys = new HostAuth(DhchapSecret.of("host key", f[4]),
                            f[5].equals("-") ? Optional.empty() : Optional.of(DhchapSecret.of("controller key", f[5])),
                            f[2], f[3]);
                    auth.put(Nqn.of(f[0]), new RecordedAuth(keys, Instant.ofEpochMilli(Long.parseLong(f[1]))));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("export record: an auth entry's time is not a number", e);
                }
            }
        }
        return new ExportRecord(VolumeId.of(p.getProperty("volume")), p.getProperty("backend"),
                Path.of(p.getProperty("device")), PortAddress.tcp(p.getProperty("traddr"), port, tls(p)), acl, allowed,
                authRequired, auth, psks(p));
    }

    /** {@code psk=<host> <key>,...}: no field holds ' ' or ','. */
    private static Map<Nqn, TlsPsk> psks(Properties p) {
        Map<Nqn, TlsPsk> psks = new HashMap<>();
        String entries = p.getProperty("psk", "");
        if (!entries.isEmpty()) {
            for (String entry : entries.split(",")) {
                String[] f = entry.split(" ");
                if (f.length != 2) {
                    throw new IllegalArgumentException("export record: a psk entry does not have 2 fields");
                }
                psks.put(Nqn.of(f[0]), TlsPsk.of("psk", f[1]));
            }
        }
        return psks;
    }

    private static boolean bool(Properties p, String key) {
        String value = p.getProperty(key);
        if (!"true".equals(value) && !"false".equals(value)) {
            throw new IllegalArgumentException("export record: " + key + " must be true or false");
        }
        return Boolean.parseBoolean(value);
    }
}
