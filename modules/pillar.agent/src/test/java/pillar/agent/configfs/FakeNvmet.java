package pillar.agent.configfs;

import static pillar.agent.configfs.KernelError.Code.EACCES;
import static pillar.agent.configfs.KernelError.Code.EADDRINUSE;
import static pillar.agent.configfs.KernelError.Code.EADDRNOTAVAIL;
import static pillar.agent.configfs.KernelError.Code.EBUSY;
import static pillar.agent.configfs.KernelError.Code.EEXIST;
import static pillar.agent.configfs.KernelError.Code.EINVAL;
import static pillar.agent.configfs.KernelError.Code.ENOENT;
import static pillar.agent.configfs.KernelError.Code.EPERM;
import static pillar.agent.configfs.KernelError.Code.ERANGE;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * nvmet as kernel 6.1 defines it in configfs ({@code drivers/nvme/target/configfs.c}), for
 * {@link FakeConfigfsTree}: what mkdir makes in each directory (attributes with their first values,
 * default groups), what each attribute accepts and shows, which links each directory accepts, and the
 * TCP listener a port starts on its first link. Values and errors as measured on Debian's 6.1 kernel;
 * {@link ConfigfsTreeKernelIT} runs the same contract there.
 *
 * <p>Attributes pillar-csi never writes ({@code attr_model}, {@code attr_serial}, {@code ana_state}...)
 * only keep what is written, up to the first newline, without the kernel's checks.
 */
final class FakeNvmet {
    static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";
    /** nvmet-tcp sets {@code param_inline_data_size} to this when the port has none (-1). */
    static final int TCP_INLINE_DATA_SIZE = 16_384;
    private static final long U32_MAX = 0xFFFF_FFFFL;
    private static final int MAX_ANA_GROUPS = 128;
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");
    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private final Random random;
    private final Set<Path> blockDevices = new HashSet<>();
    private final Set<InetAddress> localAddresses = new HashSet<>();
    private final List<Port> listening = new ArrayList<>();

    FakeNvmet(long seed) {
        this.random = new Random(seed);
        addLocalAddress("127.0.0.1");
        addLocalAddress("::1");
    }

    /** A block device the namespaces may open. */
    void addBlockDevice(Path device) {
        blockDevices.add(device);
    }

    /** An address of this host: a port may listen on it (wildcards always may). */
    void addLocalAddress(String address) {
        localAddresses.add(literal(address));
    }

    /** {@code nvmet/}: the item the module registers with configfs. */
    Item root() {
        return new Root();
    }

    // ---- the items -------------------------------------------------------------------------------------------

    /** A config item or group: what mkdir in it makes, the links it accepts, its attributes. */
    abstract static class Item {
        /** Its attributes, by name; made once, when the directory appears. */
        Map<String, Attribute> attributes() {
            return Map.of();
        }

        /** The directories the kernel makes with it (rmdir refuses them: EPERM). */
        Map<String, Item> defaultGroups() {
            return Map.of();
        }

        /** mkdir of {@code name} in this directory; EPERM where nvmet has no make_group. */
        Item make(String name) throws KernelError {
            throw new KernelError(EPERM);
        }

        /** Whether symlinks may be made in this directory (configfs: an allow_link operation). */
        boolean acceptsLinks() {
            return false;
        }

        void allowLink(Item target) throws KernelError {
            throw new KernelError(EPERM);
        }

        void dropLink(Item target) {
        }

        /** After rmdir. */
        void release() {
        }
    }

    /** An attribute file: {@code show} null for a write-only one. Shown values get a newline appended. */
    record Attribute(Show show, Store store) {
        static Attribute plain(String initial) {
            String[] value = {initial};
            return new Attribute(() -> value[0], page -> value[0] = firstLine(page));
        }
    }

    @FunctionalInterface
    interface Show {
        String text();
    }

    @FunctionalInterface
    interface Store {
        void store(String page) throws KernelError;
    }

    private final class Root extends Item {
        @Override
        Map<String, Item> defaultGroups() {
            return Map.of("hosts", new HostsGroup(), "ports", new PortsGroup(), "subsystems", new SubsystemsGroup());
        }
    }

    private static final class HostsGroup extends Item {
        @Override
        Item make(String name) {
            return new Host(name);
        }
    }

    private static final class Host extends Item {
        final String name;

        Host(String name) {
            this.name = name;
        }
    }

    private final class SubsystemsGroup extends Item {
        @Override
        Item make(String name) throws KernelError {
            if (sysfsStreq(name, DISCOVERY_NQN)) {
                throw new KernelError(EINVAL); // "can't create discovery subsystem through configfs"
            }
            return new Subsystem();
        }
    }

    private final class Subsystem extends Item {
        boolean allowAnyHost;
        final List<Host> hosts = new ArrayList<>();

        @Override
        Map<String, Attribute> attributes() {
            Map<String, Attribute> a = new LinkedHashMap<>();
            a.put("attr_allow_any_host", new Attribute(() -> bit(allowAnyHost), page -> {
                boolean allow = kstrtobool(page);
                if (allow && !hosts.isEmpty()) {
                    throw new KernelError(EINVAL); // "Can't set allow_any_host when explicit hosts are set!"
                }
                allowAnyHost = allow;
            }));
            a.put("attr_cntlid_max", Attribute.plain("65519"));
            a.put("attr_cntlid_min", Attribute.plain("1"));
            a.put("attr_model", Attribute.plain("Linux"));
            a.put("attr_pi_enable", Attribute.plain("0"));
            a.put("attr_qid_max", Attribute.plain("128"));
            a.put("attr_serial", Attribute.plain(HexFormat.of().formatHex(randomBytes(10))));
            a.put("attr_version", Attribute.plain("1.3"));
            return a;
        }

        @Override
        Map<String, Item> defaultGroups() {
            return Map.of("allowed_hosts", new AllowedHosts(this), "namespaces", new Namespaces());
        }
    }

    private static final class AllowedHosts extends Item {
        final Subsystem subsystem;

        AllowedHosts(Subsystem subsystem) {
            this.subsystem = subsystem;
        }

        @Override
        boolean acceptsLinks() {
            return true;
        }

        @Override
        void allowLink(Item target) throws KernelError {
            if (!(target instanceof Host host)) {
                throw new KernelError(EINVAL); // "can only link hosts into the allowed_hosts directory!"
            }
            if (subsystem.allowAnyHost) {
                throw new KernelError(EINVAL); // "can't add hosts when allow_any_host is set!"
            }
            if (subsystem.hosts.stream().anyMatch(h -> h.name.equals(host.name))) {
                throw new KernelError(EEXIST);
            }
            subsystem.hosts.add(host);
        }

        @Override
        void dropLink(Item target) {
            subsystem.hosts.remove(target);
        }
    }

    private final class Namespaces extends Item {
        @Override
        Item make(String name) throws KernelError {
            if (!KernelNumbers.isNumber(name)) {
                throw new KernelError(EINVAL);
            }
            long nsid = KernelNumbers.parse(name, U32_MAX).orElseThrow(() -> new KernelError(ERANGE));
            if (nsid == 0 || nsid == U32_MAX) {
                throw new KernelError(EINVAL); // "invalid nsid"
            }
            return new Namespace();
        }
    }

    private final class Namespace extends Item {
        String devicePath; // null until written: shown as "(null)"
        boolean enabled;
        boolean bufferedIo;

        @Override
        Map<String, Attribute> attributes() {
            Map<String, Attribute> a = new LinkedHashMap<>();
            a.put("ana_grpid", anaGroupId());
            a.put("buffered_io", new Attribute(() -> bit(bufferedIo), page -> {
                boolean value = kstrtobool(page);
                if (enabled) {
                    throw new KernelError(EINVAL); // "disable ns before setting buffered_io value."
                }
                bufferedIo = value;
            }));
            a.put("device_nguid", whileDisabled("00000000-0000-0000-0000-000000000000", FakeNvmet::nguid));
            a.put("device_path", new Attribute(() -> devicePath == null ? "(null)" : devicePath, page -> {
                if (enabled) {
                    throw new KernelError(EBUSY);
                }
                String path = firstLine(page);
                if (path.isEmpty()) {
                    throw new KernelError(EINVAL);
                }
                devicePath = path;
            }));
            a.put("device_uuid", whileDisabled(uuid(randomBytes(16)), page -> {
                String text = firstLine(page);
                if (!UUID.matcher(text).matches()) {
                    throw new KernelError(EINVAL);
                }
                return text.toLowerCase(Locale.ROOT);
            }));
            a.put("enable", new Attribute(() -> bit(enabled), page -> {
                if (kstrtobool(page)) {
                    enable();
                } else {
                    enabled = false;
                }
            }));
            a.put("revalidate_size", new Attribute(null, page -> {
                if (!kstrtobool(page) || !enabled) {
                    throw new KernelError(EINVAL); // "enable ns before revalidate."
                }
            }));
            return a;
        }

        private void enable() throws KernelError {
            if (enabled) {
                return;
            }
            if (devicePath == null) {
                throw new KernelError(EINVAL); // lookup_bdev(NULL)
            }
            if (!blockDevices.contains(Path.of(devicePath))) {
                throw new KernelError(ENOENT); // "failed to open block device"
            }
            enabled = true;
        }

        private Attribute whileDisabled(String initial, Parser parser) {
            String[] value = {initial};
            return new Attribute(() -> value[0], page -> {
                if (enabled) {
                    throw new KernelError(EBUSY);
                }
                value[0] = parser.parse(page);
            });
        }

        private Attribute anaGroupId() {
            long[] value = {1};
            return new Attribute(() -> Long.toString(value[0]), page -> {
                long id = kstrtou32(page);
                if (id < 1 || id > MAX_ANA_GROUPS) {
                    throw new KernelError(EINVAL);
                }
                value[0] = id;
            });
        }

        @Override
        void release() {
            enabled = false; // nvmet_ns_free disables it first
        }
    }

    @FunctionalInterface
    private interface Parser {
        String parse(String page) throws KernelError;
    }

    private final class PortsGroup extends Item {
        @Override
        Item make(String name) throws KernelError {
            if (KernelNumbers.parse(name, PortId.MAX).isEmpty()) {
                throw new KernelError(EINVAL); // kstrtou16 failed, whatever the reason
            }
            return new Port();
        }
    }

    private final class Port extends Item {
        String trtype = "";
        String adrfam = "";
        String traddr = "";
        String trsvcid = "";
        String treq = "not specified";
        long inlineDataSize = -1;
        boolean piEnable;
        final List<Subsystem> subsystems = new ArrayList<>();
        boolean enabled;
        InetAddress listenAddress;
        long listenPort;

        @Override
        Map<String, Attribute> attributes() {
            Map<String, Attribute> a = new LinkedHashMap<>();
            a.put("addr_adrfam", choice(() -> adrfam, v -> adrfam = v, "ipv4", "ipv6", "ib", "fc", "loop"));
            a.put("addr_traddr", token(() -> traddr, v -> traddr = v, 256));
            a.put("addr_treq", choice(() -> treq, v -> treq = v, "not specified", "required", "not required"));
            a.put("addr_trsvcid", token(() -> trsvcid, v -> trsvcid = v, 32));
            a.put("addr_trtype", choice(() -> trtype, v -> trtype = v, "rdma", "fc", "tcp", "loop"));
            a.put("param_inline_data_size", new Attribute(() -> Long.toString(inlineDataSize), page -> {
                refuseWhileEnabled();
                inlineDataSize = kstrtoint(page);
            }));
            a.put("param_pi_enable", new Attribute(() -> bit(piEnable), page -> {
                boolean value = kstrtobool(page);
                refuseWhileEnabled();
                piEnable = value;
            }));
            return a;
        }

        @Override
        Map<String, Item> defaultGroups() {
            return Map.of("ana_groups", new AnaGroups(), "referrals", new Referrals(), "subsystems", new PortSubsystems(this));
        }

        /** "Disable port before changing attribute": every addr_* and param_* write, even of the same value. */
        private void refuseWhileEnabled() throws KernelError {
            if (enabled) {
                throw new KernelError(EACCES);
            }
        }

        private Attribute choice(Show show, Setter set, String... names) {
            return new Attribute(show, page -> {
                refuseWhileEnabled();
                for (String name : names) {
                    if (sysfsStreq(page, name)) {
                        set.set(name);
                        return;
                    }
                }
                throw new KernelError(EINVAL);
            });
        }

        private Attribute token(Show show, Setter set, int maxBytes) {
            return new Attribute(show, page -> {
                if (page.getBytes(StandardCharsets.UTF_8).length > maxBytes) {
                    throw new KernelError(EINVAL);
                }
                refuseWhileEnabled();
                String[] tokens = cString(page).strip().split("\\s+", 2); // sscanf(page, "%s\n", ...)
                if (tokens[0].isEmpty()) {
                    throw new KernelError(EINVAL);
                }
                set.set(tokens[0]);
            });
        }

        /** nvmet_enable_port with nvmet-tcp, the only transport the model has loaded. */
        void enable() throws KernelError {
            if (!trtype.equals("tcp") || piEnable) {
                throw new KernelError(EINVAL); // "transport type not supported", "T10-PI is not supported"
            }
            InetAddress address = switch (adrfam) {
                case "ipv4" -> ipv4(traddr);
                case "ipv6" -> ipv6(traddr);
                default -> throw new KernelError(EINVAL); // "address family not supported"
            };
            OptionalLong port = KernelNumbers.parse(trsvcid, PortId.MAX);
            if (port.isEmpty()) {
                throw new KernelError(EINVAL); // "malformed ip/port passed"
            }
            if (inlineDataSize < 0) {
                inlineDataSize = TCP_INLINE_DATA_SIZE;
            }
            if (!address.isAnyLocalAddress() && !localAddresses.contains(address)) {
                throw new KernelError(EADDRNOTAVAIL);
            }
            for (Port other : listening) {
                if (other.listenPort == port.getAsLong() && (other.listenAddress.equals(address)
                        || other.listenAddress.isAnyLocalAddress() || address.isAnyLocalAddress())) {
                    throw new KernelError(EADDRINUSE);
                }
            }
            listenAddress = address;
            listenPort = port.getAsLong();
            enabled = true;
            listening.add(this);
        }

        void disable() {
            enabled = false;
            listening.remove(this);
        }
    }

    @FunctionalInterface
    private interface Setter {
        void set(String value);
    }

    private static final class PortSubsystems extends Item {
        final Port port;

        PortSubsystems(Port port) {
            this.port = port;
        }

        @Override
        boolean acceptsLinks() {
            return true;
        }

        @Override
        void allowLink(Item target) throws KernelError {
            if (!(target instanceof Subsystem subsystem)) {
                throw new KernelError(EINVAL); // "can only link subsystems into the subsystems dir.!"
            }
            if (port.subsystems.contains(subsystem)) {
                throw new KernelError(EEXIST);
            }
            if (port.subsystems.isEmpty()) {
                port.enable();
            }
            port.subsystems.add(subsystem);
        }

        @Override
        void dropLink(Item target) {
            if (port.subsystems.remove(target) && port.subsystems.isEmpty()) {
                port.disable();
            }
        }
    }

    private static final class AnaGroups extends Item {
        @Override
        Map<String, Item> defaultGroups() {
            return Map.of("1", new AnaGroup());
        }

        @Override
        Item make(String name) throws KernelError {
            long id = kstrtou32(name);
            if (id <= 1 || id > MAX_ANA_GROUPS) {
                throw new KernelError(EINVAL);
            }
            return new AnaGroup();
        }
    }

    private static final class AnaGroup extends Item {
        @Override
        Map<String, Attribute> attributes() {
            return Map.of("ana_state", Attribute.plain("optimized"));
        }
    }

    private static final class Referrals extends Item {
        @Override
        Item make(String name) {
            return new Referral();
        }
    }

    private static final class Referral extends Item {
        @Override
        Map<String, Attribute> attributes() {
            Map<String, Attribute> a = new LinkedHashMap<>();
            for (String name : List.of("addr_adrfam", "addr_traddr", "addr_trsvcid", "addr_trtype")) {
                a.put(name, Attribute.plain(""));
            }
            a.put("addr_portid", Attribute.plain("0"));
            a.put("addr_treq", Attribute.plain("not specified"));
            a.put("enable", Attribute.plain("0"));
            return a;
        }
    }

    // ---- the kernel's parsers --------------------------------------------------------------------------------

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

    /** Equal, or equal but for one trailing newline on either side. */
    static boolean sysfsStreq(String a, String b) {
        String s1 = cString(a);
        String s2 = cString(b);
        return s1.equals(s2) || s1.equals(s2 + "\n") || s2.equals(s1 + "\n");
    }

    /** y/Y/1 and on are true, n/N/0 and off false, by the first characters only; anything else EINVAL. */
    static boolean kstrtobool(String page) throws KernelError {
        String s = cString(page);
        if (!s.isEmpty()) {
            switch (s.charAt(0)) {
                case 'y', 'Y', '1' -> {
                    return true;
                }
                case 'n', 'N', '0' -> {
                    return false;
                }
                case 'o', 'O' -> {
                    if (s.length() > 1 && (s.charAt(1) == 'n' || s.charAt(1) == 'N')) {
                        return true;
                    }
                    if (s.length() > 1 && (s.charAt(1) == 'f' || s.charAt(1) == 'F')) {
                        return false;
                    }
                }
                default -> {
                }
            }
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

    private static String nguid(String page) throws KernelError {
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
    private static String uuid(byte[] b) {
        String hex = HexFormat.of().formatHex(b);
        return hex.substring(0, 8) + "-" + hex.substring(8, 12) + "-" + hex.substring(12, 16) + "-"
                + hex.substring(16, 20) + "-" + hex.substring(20);
    }

    private byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }

    private static String bit(boolean value) {
        return value ? "1" : "0";
    }

    /** in4_pton: four decimal parts of at most three digits, each at most 255. */
    private static InetAddress ipv4(String text) throws KernelError {
        var m = IPV4.matcher(text);
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

    private static InetAddress ipv6(String text) throws KernelError {
        if (!IPV6.matcher(text).matches()) {
            throw new KernelError(EINVAL);
        }
        try {
            return InetAddress.getByName(text); // a literal with ':' is parsed, never looked up
        } catch (UnknownHostException | IllegalArgumentException e) {
            throw new KernelError(EINVAL);
        }
    }

    private static InetAddress literal(String address) {
        try {
            return address.contains(":") ? ipv6(address) : ipv4(address);
        } catch (KernelError e) {
            throw new IllegalArgumentException("not an IP literal: " + address, e);
        }
    }
}
