package pillar.agent.configfs;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import pillar.api.value.DhchapSecret;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.runtime.keys.KernelKeyring;
import pillar.runtime.keys.Keyring;
import pillar.runtime.keys.KeyringException;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * {@link NvmetTarget} on the kernel's nvmet configfs tree. Reads the actual state first, writes only
 * what differs (the kernel refuses some rewrites of unchanged values), reads every written value back.
 * Every configfs call returns within {@link DeadlineConfigfsTree#DEFAULT_DEADLINE} (10 s): a call the
 * kernel does not answer fails the operation with an {@link NvmetTargetException} that
 * {@link NvmetTargetException#timedOut() timed out}.
 *
 * <p>Not thread-safe per subsystem: callers serialise the operations on one volume (the agent holds one
 * lock per volume). Operations on different subsystems may run concurrently. The steps that create,
 * use or remove the shared ports and host entries run under this adapter's shared lock, so that one
 * never sees another half done (a port whose address is being written, a host entry being removed,
 * a port removed between another export's {@link #ensurePort} and its {@link #linkPort}, which
 * {@link #ensureExport} does in one locked section). A subsystem's own steps (its attributes and
 * namespaces, where the kernel opens and releases the backing device and may hang on it) run outside
 * that lock, so a volume stuck there never holds up another; waiting for the lock is bounded too
 * ({@link #SHARED_WAIT}). Between two calls the lock is not held: a {@link #removeSubsystem} may remove
 * a port that another caller has ensured but not linked yet, whose {@link #linkPort} then fails ("port
 * ... does not exist") and converges when retried. One adapter per configfs tree.
 */
public final class ConfigfsNvmetTarget implements NvmetTarget {
    /** Block device paths as volume backends name them: /dev/vg/lv, /dev/zvol/pool/ds, /dev/dm-3... */
    private static final Pattern DEVICE_PATH = Pattern.compile("/[A-Za-z0-9._+:/-]{1,4094}");
    private static final String LIVE_PORT_HINT =
            "the kernel refuses to change the address of a port that links subsystems (EACCES,"
                    + " dmesg: \"Disable port before changing attribute\")";

    /** The longest a call waits for the shared lock before it fails as timed out. */
    static final Duration SHARED_WAIT = Duration.ofSeconds(30);

    /** The host entry the capability probe makes and removes at once; no initiator uses this NQN. */
    static final String AUTH_PROBE_HOST = "nqn.2024-06.io.pillar-csi:probe-nvme-auth";
    public static final String NO_AUTH_MESSAGE = "the kernel's nvmet has no DH-HMAC-CHAP authentication: it was built without"
            + " CONFIG_NVME_TARGET_AUTH (Debian 12's 6.1 kernel is; bookworm-backports' 6.12 has it)";

    public static final String NO_TLS_MESSAGE = "the kernel's nvmet ports cannot require TLS: it has no addr_tsas"
            + " (NVMe/TCP TLS needs kernel 6.7 or newer with CONFIG_NVME_TARGET_TCP_TLS; Debian 12's 6.1 has none,"
            + " bookworm-backports' 6.12 has it)";

    /** The kernel's {@code .nvme} keyring, where nvmet-tcp's handshake ({@code tlshd}) finds a host's key. */
    private static final Supplier<Keyring> KERNEL_KEYS = () -> KernelKeyring.nvme(Path.of("/proc/keys"));

    /** What clears a {@code dhchap_*key}: the kernel reads it back as "". */
    private static final String CLEAR_SECRET = "\0";

    /**
     * The port the drain makes and removes at once ({@link #drain}); never one of pillar-csi's, whose ids
     * are 1 to 65535 ({@code Exporter.portId}), and refused if something else made it and links to it.
     */
    static final PortId DRAIN_PORT = PortId.of(0);

    private final ReentrantLock shared = new ReentrantLock();
    /** One drain at a time: two sharing the drain port could take the other's rmdir for their own flush. */
    private final ReentrantLock draining = new ReentrantLock();
    private volatile Boolean authSupport; // null until probed with nvmet present
    private volatile Boolean tlsSupport; // null until probed with nvmet present
    private final Supplier<Keyring> tlsKeys;
    private static final System.Logger LOG = System.getLogger(ConfigfsNvmetTarget.class.getName());
    private final ConfigfsFiles fs;
    private final ConfigfsStateReader reader;
    private final ConfigfsPrune prune;
    private final Path subsystems;
    private final Path ports;
    private final Path hosts;

    /**
     * @param configfsRoot where configfs is mounted, {@code /sys/kernel/config} on a normal host; the
     *                     tree is expected at {@code <configfsRoot>/nvmet}
     */
    public ConfigfsNvmetTarget(Path configfsRoot) {
        this(configfsRoot, new DeadlineConfigfsTree(new KernelConfigfsTree(), DeadlineConfigfsTree.DEFAULT_DEADLINE),
                KERNEL_KEYS);
    }

    /**
     * The adapter on the kernel's tree as the agent serves it: every configfs call also timed into
     * {@code metrics} ({@link TimedConfigfsTree}).
     */
    public ConfigfsNvmetTarget(Path configfsRoot, WorkloadMetrics metrics) {
        this(configfsRoot, new TimedConfigfsTree(new DeadlineConfigfsTree(new KernelConfigfsTree(),
                DeadlineConfigfsTree.DEFAULT_DEADLINE, metrics), metrics), KERNEL_KEYS);
    }

    /**
     * The adapter over another implementation of the configfs calls: the tests' model of the kernel.
     *
     * @param configfsRoot where {@code tree} has configfs mounted
     */
    ConfigfsNvmetTarget(Path configfsRoot, ConfigfsTree tree) {
        this(configfsRoot, tree, KERNEL_KEYS);
    }

    /**
     * The adapter over another implementation of the configfs calls and of the keyring: the tests' model of
     * the kernel.
     */
    ConfigfsNvmetTarget(Path configfsRoot, ConfigfsTree tree, Supplier<Keyring> tlsKeys) {
        this.tlsKeys = tlsKeys;
        this.fs = new ConfigfsFiles(configfsRoot, tree);
        this.reader = new ConfigfsStateReader(fs);
        this.prune = new ConfigfsPrune(fs);
        this.subsystems = fs.nvmet().resolve("subsystems");
        this.ports = fs.nvmet().resolve("ports");
        this.hosts = fs.nvmet().resolve("hosts");
    }

    @Override
    public void ensureSubsystem(Nqn subsystem, boolean allowAnyHost) {
        Path dir = subsystemDir(subsystem);
        fs.mkdirIfAbsent(dir, "");
        fs.ensure(dir.resolve("attr_allow_any_host"), allowAnyHost ? "1" : "0",
                "EINVAL here means allowed_hosts has entries: the kernel refuses allow_any_host=1 then");
    }

    @Override
    public void ensureNamespace(Nqn subsystem, NamespaceId nsid, Path device) {
        String devicePath = devicePathValue(device);
        Path subsystemDir = subsystemDir(subsystem);
        fs.requireDirectory(subsystemDir, "subsystem " + subsystem);
        Path dir = subsystemDir.resolve("namespaces").resolve(nsid.dirName());
        fs.mkdirIfAbsent(dir, "");
        Path enable = dir.resolve("enable");
        Path pathFile = dir.resolve("device_path");
        if (fs.read(enable).equals("1")) {
            String current = fs.read(pathFile);
            if (!current.equals(devicePath)) {
                throw new NvmetTargetException("namespace " + nsid + " of " + subsystem + " is enabled with "
                        + pathFile + " = '" + current + "', wanted '" + devicePath
                        + "': the kernel does not change the device of an enabled namespace (EBUSY);"
                        + " remove the export first", pathFile);
            }
            return;
        }
        fs.ensure(dir.resolve("device_uuid"), namespaceUuid(subsystem, nsid), "the kernel takes a UUID only while disabled");
        fs.ensure(pathFile, devicePath, "");
        fs.ensure(enable, "1", "the kernel could not open " + devicePath
                + ": does it exist, is it a block device and not held exclusively? (dmesg tells)");
    }

    /**
     * The namespace's UUID, the same every time it is exported: a host connected through a target
     * that restarted (the agent re-applying after a reboot) compares the namespace's identifiers,
     * and one that changed ("identifiers changed for nsid") makes it drop the namespace under the
     * mounted filesystem. The kernel's default is a random one per mkdir.
     */
    static String namespaceUuid(Nqn subsystem, NamespaceId nsid) {
        return UUID.nameUUIDFromBytes(("pillar-csi namespace " + nsid.dirName() + " of " + subsystem.value())
                .getBytes(StandardCharsets.UTF_8)).toString();
    }

    @Override
    public void ensurePort(PortId port, PortAddress address) {
        requireTls(port, address);
        withShared(() -> ensurePortLocked(port, address));
    }

    /** A TLS address on a kernel whose ports have no {@code addr_tsas} fails before anything is written. */
    private void requireTls(PortId port, PortAddress address) {
        if (address.tls() && !tlsSupported()) {
            throw new NvmetTargetException(NO_TLS_MESSAGE + " (port " + port + " at " + address + ")", portDir(port));
        }
    }

    private void ensurePortLocked(PortId port, PortAddress address) {
        Path dir = portDir(port);
        fs.mkdirIfAbsent(dir, "");
        List<AttributeChange> changes = address.changesFrom(fs.attributes(dir, PortAddress.compared()));
        if (changes.isEmpty()) {
            return;
        }
        List<Path> linked = fs.list(dir.resolve("subsystems"));
        if (!linked.isEmpty()) {
            throw new NvmetTargetException("port " + port + " (" + dir + ") is live: it exports "
                    + linked.size() + " subsystem(s) and " + changes.stream().map(AttributeChange::toString)
                            .collect(Collectors.joining(", "))
                    + "; " + LIVE_PORT_HINT + ". Use another port id or unexport its subsystems first", dir);
        }
        for (AttributeChange change : changes) {
            fs.ensure(dir.resolve(change.attribute()), change.wanted(), LIVE_PORT_HINT);
        }
    }

    @Override
    public void linkPort(PortId port, Nqn subsystem) {
        withShared(() -> linkPortLocked(port, subsystem));
    }

    private void linkPortLocked(PortId port, Nqn subsystem) {
        Path portDir = portDir(port);
        Path subsystemDir = subsystemDir(subsystem);
        fs.requireDirectory(portDir, "port " + port);
        fs.requireDirectory(subsystemDir, "subsystem " + subsystem);
        fs.linkOnce(portDir.resolve("subsystems"), subsystemDir,
                "linking the first subsystem starts the listener: is nvmet-tcp loaded, is the address"
                        + " local and the TCP port free? (dmesg tells)");
    }

    @Override
    public void allowHost(Nqn subsystem, Nqn host, Optional<HostAuth> auth) {
        withShared(() -> allowHostLocked(subsystem, host, auth));
    }

    @Override
    public void allowOnlyHost(Nqn subsystem, Nqn host, Optional<HostAuth> auth) {
        withShared(() -> {
            requireSubsystem(subsystem);
            prune.hostsExcept(subsystem, Set.of(host));
            allowHostLocked(subsystem, host, auth);
            relinkPorts(subsystem);
        });
        drain();
    }

    private void requireSubsystem(Nqn subsystem) {
        fs.requireDirectory(subsystemDir(subsystem), "subsystem " + subsystem);
    }

    /** The host entry first, with its keys when given (a new value replaces the old), then the link. */
    private void allowHostLocked(Nqn subsystem, Nqn host, Optional<HostAuth> auth) {
        Path subsystemDir = subsystemDir(subsystem);
        fs.requireDirectory(subsystemDir, "subsystem " + subsystem);
        Path allowed = subsystemDir.resolve("allowed_hosts");
        boolean linked = !fs.linksTo(allowed, host.value()).isEmpty();
        if (linked && auth.isEmpty()) {
            return;
        }
        Path anyHost = subsystemDir.resolve("attr_allow_any_host");
        if (!linked && fs.read(anyHost).equals("1")) {
            throw new NvmetTargetException("subsystem " + subsystem + " allows any host (" + anyHost + " is 1)"
                    + " and the kernel refuses host entries then (EINVAL): ensure it with allowAnyHost false first",
                    anyHost);
        }
        if (auth.isPresent() && !authSupported()) {
            throw new NvmetTargetException(NO_AUTH_MESSAGE, hosts);
        }
        Path hostDir = hostDir(host);
        fs.mkdirIfAbsent(hostDir, "");
        if (auth.isPresent()) {
            writeAuth(hostDir, auth.get());
        }
        if (!linked) {
            fs.symlink(allowed.resolve(host.value()), hostDir,
                    "EINVAL here means the subsystem allows any host: the kernel refuses host entries then");
        }
    }

    /** hash and group before the keys (the kernel checks a key's transform against nothing else); secrets never shown. */
    private void writeAuth(Path hostDir, HostAuth auth) {
        Path key = hostDir.resolve("dhchap_key");
        if (!fs.exists(key)) {
            throw new NvmetTargetException(NO_AUTH_MESSAGE + " (" + key + " does not exist)", key);
        }
        fs.ensure(hostDir.resolve("dhchap_hash"), auth.hash(), "EINVAL: not a hash nvmet knows; ENOTSUPP: its crypto module is missing");
        fs.ensure(hostDir.resolve("dhchap_dhgroup"), auth.dhGroup(), "EINVAL here means the kernel lacks the group's crypto (dh)");
        fs.ensureSecret(key, auth.hostKey().value(), "EINVAL here means the kernel refused the secret's form");
        Path controllerKey = hostDir.resolve("dhchap_ctrl_key");
        if (auth.controllerKey().isPresent()) {
            fs.ensureSecret(controllerKey, auth.controllerKey().get().value(), "EINVAL here means the kernel refused the secret's form");
        } else if (!fs.read(controllerKey).isEmpty()) {
            // nvmet clears a key on a write whose text is empty (strlen 0); an empty write never reaches
            // it (configfs calls no store for 0 bytes) and "\n" is not empty: one NUL byte is
            fs.ensureSecret(controllerKey, CLEAR_SECRET, "");
        }
    }

    @Override
    public boolean authSupported() {
        Boolean known = authSupport;
        if (known != null) {
            return known;
        }
        if (presence() == TargetPresence.NOT_MOUNTED || presence() == TargetPresence.NVMET_MISSING) {
            return false; // not known yet: asked again once nvmet is there
        }
        boolean[] found = new boolean[1];
        withShared(() -> {
            Path probe = hosts.resolve(AUTH_PROBE_HOST);
            fs.mkdirIfAbsent(probe, "");
            try {
                found[0] = fs.exists(probe.resolve("dhchap_key"));
            } finally {
                fs.rmdirIfPresent(probe, "");
            }
        });
        authSupport = found[0];
        return found[0];
    }

    @Override
    public void disallowHost(Nqn subsystem, Nqn host) {
        withShared(() -> disallowHostLocked(subsystem, host));
        drain();
    }

    private void disallowHostLocked(Nqn subsystem, Nqn host) {
        Path dir = subsystemDir(subsystem);
        for (Path link : fs.linksTo(dir.resolve("allowed_hosts"), host.value())) {
            fs.unlinkIfPresent(link, "");
        }
        prune.hostIfUnused(host.value());
        if (fs.isDirectory(dir)) {
            relinkPorts(subsystem);
        }
    }

    /**
     * Unlinks the subsystem from each port that exports it and links it again at once: the kernel drops
     * every controller of the subsystem on that port, and only hosts allowed now can reconnect. A port
     * that linked nothing else stops listening for that moment. When the link cannot be made again the
     * subsystem stays unexported on that port (still fenced) and the error says so: re-applying the
     * export ({@link #ensureExport}) restores it.
     */
    private void relinkPorts(Nqn subsystem) {
        Path subsystemDir = subsystemDir(subsystem);
        for (Path port : fs.list(ports)) {
            Path links = port.resolve("subsystems");
            for (Path link : fs.linksTo(links, subsystem.value())) {
                fs.unlinkIfPresent(link, "");
                fs.linkOnce(links, subsystemDir, "the subsystem is unexported on " + port
                        + " until its export is applied again (the revoked host stays fenced)");
            }
        }
    }

    /**
     * Waits until every controller dropped so far is torn down: its queues receive nothing more and every
     * request they had submitted to a backing device has completed. A dropped controller's teardown
     * ({@code nvmet_tcp_release_queue_work}: stop receiving, then {@code nvmet_sq_destroy}, which waits for
     * the queue's in-flight requests) runs later on the kernel's {@code nvmet_wq}, where unlinking the
     * port queued it; removing a port directory ({@code nvmet_port_release}) flushes {@code nvmet_wq}
     * (6.1 and 6.12). So the drain makes {@link #DRAIN_PORT} and removes it. That flush also waits for
     * the teardown of other subsystems' controllers: one stuck on a hung device makes this call fail
     * after the configfs deadline (timed out), never return early. Runs outside the shared lock.
     */
    @Override
    public boolean tlsSupported() {
        Boolean known = tlsSupport;
        if (known != null) {
            return known;
        }
        if (presence() == TargetPresence.NOT_MOUNTED || presence() == TargetPresence.NVMET_MISSING) {
            return false; // not known yet: asked again once nvmet is there
        }
        try {
            tlsKeys.get();
        } catch (KeyringException e) {
            LOG.log(System.Logger.Level.INFO, "no NVMe/TCP TLS: " + e.getMessage());
            tlsSupport = false;
            return false;
        }
        // an existing port tells without a write; with none, the drain port is made and removed at once
        boolean[] found = new boolean[1];
        List<Path> existing = fs.list(ports);
        if (existing.isEmpty()) {
            onDrainPort(dir -> found[0] = fs.exists(dir.resolve(PortAddress.TSAS)));
        } else {
            found[0] = fs.exists(existing.getFirst().resolve(PortAddress.TSAS));
        }
        tlsSupport = found[0];
        return found[0];
    }

    @Override
    public Keyring tlsKeys() {
        return tlsKeys.get();
    }

    private void drain() {
        onDrainPort(dir -> { });
    }

    /** Makes {@link #DRAIN_PORT}, hands it to {@code use}, removes it: the removal flushes dropped controllers. */
    private void onDrainPort(java.util.function.Consumer<Path> use) {
        boolean locked;
        try {
            locked = draining.tryLock(SHARED_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NvmetTargetException("interrupted while waiting to drain", ports);
        }
        if (!locked) {
            throw new NvmetTargetException("another drain has run for " + SHARED_WAIT.toSeconds() + " s (stuck in the kernel?)",
                    ports, Errno.OTHER, new ConfigfsTimeoutException("waiting for the drain of", ports, SHARED_WAIT));
        }
        try {
            Path dir = portDir(DRAIN_PORT);
            fs.mkdirIfAbsent(dir, "");
            if (!fs.list(dir.resolve("subsystems")).isEmpty()) {
                throw new NvmetTargetException("port " + DRAIN_PORT + " (" + dir + ") links subsystems: pillar-csi reserves"
                        + " port id 0 to drain controllers (made and removed at once); free it", dir);
            }
            use.accept(dir);
            fs.rmdirIfPresent(dir, "the kernel waits here for dropped controllers' requests to complete");
        } finally {
            draining.unlock();
        }
    }

    @Override
    public void revalidateSize(Nqn subsystem, NamespaceId nsid) {
        Path dir = subsystemDir(subsystem).resolve("namespaces").resolve(nsid.dirName());
        fs.requireDirectory(dir, "namespace " + nsid + " of " + subsystem);
        fs.trigger(dir.resolve("revalidate_size"), "1", "EINVAL here means the namespace is not enabled");
    }

    @Override
    public void removeSubsystem(Nqn subsystem) {
        Path dir = subsystemDir(subsystem);
        if (!fs.exists(dir)) {
            return;
        }
        // 1. unexport from every port (a linked subsystem cannot be removed: EBUSY)
        List<Path> usedPorts = new ArrayList<>();
        withShared(() -> {
            for (Path port : fs.list(ports)) {
                for (Path link : fs.linksTo(port.resolve("subsystems"), subsystem.value())) {
                    fs.unlinkIfPresent(link, "");
                    usedPorts.add(port);
                }
            }
        });
        // 2. disable, then remove, each namespace: the subsystem's own, so outside the shared lock
        for (Path namespace : fs.list(dir.resolve("namespaces"))) {
            prune.namespace(namespace);
        }
        withShared(() -> {
            // 3. drop the allowed hosts, remembering which
            Set<String> hostNames = new LinkedHashSet<>();
            for (Path link : fs.list(dir.resolve("allowed_hosts"))) {
                hostNames.add(fs.linkTarget(link));
                fs.unlinkIfPresent(link, "");
            }
            // 4. the subsystem itself
            fs.rmdirIfPresent(dir, "EBUSY here means a port still links it, ENOTEMPTY that a namespace is left");
            // 5. what existed only for it
            usedPorts.forEach(prune::portIfUnused);
            hostNames.forEach(prune::hostIfUnused);
        });
    }

    @Override
    public void ensureExport(PortId port, WantedExport wanted) {
        requireTls(port, wanted.address());
        Nqn nqn = wanted.subsystem();
        Set<Nqn> hosts = wanted.aclEnabled() ? wanted.allowedHosts() : Set.of();
        boolean[] dropped = {false, false}; // port links, hosts
        if (fs.isDirectory(subsystemDir(nqn))) {
            // what the export does not list goes first: the kernel refuses allow_any_host=1 while
            // hosts are allowed, a new device_path while enabled, a port address while linked
            withShared(() -> {
                dropped[0] = prune.portLinksExcept(nqn, port, wanted.address());
                dropped[1] = prune.hostsExcept(nqn, hosts);
            });
            prune.namespacesExcept(nqn, wanted.nsid());
            prune.namespaceOnOtherDevice(nqn, wanted.nsid(), devicePathValue(wanted.device()));
        }
        ensureSubsystem(nqn, !wanted.aclEnabled());
        ensureNamespace(nqn, wanted.nsid(), wanted.device());
        withShared(() -> {
            ensurePortLocked(port, wanted.address());
            hosts.forEach(host -> allowHostLocked(nqn, host, Optional.ofNullable(wanted.auth().get(host))));
            linkPortLocked(port, nqn);
            if (dropped[1]) {
                relinkPorts(nqn); // a removed host's live controller is dropped too, as by disallowHost
            }
        });
        if (dropped[0] || dropped[1]) {
            drain();
        }
    }

    /** Runs steps on the shared ports and host entries under the shared lock, waiting for it at most {@link #SHARED_WAIT}. */
    private void withShared(Runnable steps) {
        boolean locked;
        try {
            locked = shared.tryLock(SHARED_WAIT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NvmetTargetException("interrupted while waiting for the shared ports and host entries", fs.nvmet());
        }
        if (!locked) {
            throw new NvmetTargetException("another call has held the shared ports and host entries for "
                    + SHARED_WAIT.toSeconds() + " s (stuck in the kernel?)", fs.nvmet(), Errno.OTHER,
                    new ConfigfsTimeoutException("waiting for the shared lock on", fs.nvmet(), SHARED_WAIT));
        }
        try {
            steps.run();
        } finally {
            shared.unlock();
        }
    }

    @Override
    public TargetPresence presence() {
        boolean configfs = fs.isConfigfs(fs.root());
        if (fs.isDirectory(fs.nvmet())) {
            return configfs ? TargetPresence.READY : TargetPresence.STAND_IN;
        }
        return configfs ? TargetPresence.NVMET_MISSING : TargetPresence.NOT_MOUNTED;
    }

    @Override
    public List<Nqn> subsystems() {
        return reader.subsystems();
    }

    @Override
    public Optional<SubsystemState> inspect(Nqn subsystem) {
        return reader.inspect(subsystem);
    }

    @Override
    public Map<String, List<SubsystemState.Namespace>> namespaces() {
        return reader.namespaces();
    }

    /**
     * The text written to {@code device_path}: an absolute, normalized path of plain characters, so
     * that what the kernel reads back compares equal and no newline can cut it short.
     */
    static String devicePathValue(Path device) {
        String value = device.toString();
        if (!device.isAbsolute() || !device.normalize().equals(device) || !DEVICE_PATH.matcher(value).matches()
                || value.endsWith("/")) {
            throw new InvalidValueException("device_path",
                    "must be an absolute, normalized path of letters, digits and . _ + : - /");
        }
        return value;
    }

    private Path subsystemDir(Nqn nqn) {
        return subsystems.resolve(nqn.value());
    }

    private Path portDir(PortId port) {
        return ports.resolve(port.dirName());
    }

    private Path hostDir(Nqn host) {
        return hosts.resolve(host.value());
    }
}
