package pillar.agent.export;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.zip.CRC32;

import pillar.agent.backend.DeviceIdentity;
import pillar.agent.backend.Texts;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.configfs.ExportDrift;
import pillar.agent.configfs.HostAuth;
import pillar.agent.configfs.NamespaceId;
import pillar.agent.configfs.NvmetTarget;
import pillar.agent.configfs.PortAddress;
import pillar.agent.configfs.PortId;
import pillar.agent.configfs.SubsystemState;
import pillar.agent.configfs.WantedExport;
import pillar.agent.nfs.StateRelease;
import pillar.api.value.Nqn;

/**
 * NVMe-oF/TCP as a {@link ProtocolExporter}: makes the kernel target match an export record exactly
 * ({@link NvmetTarget#ensureExport}), step by idempotent step, in the kernel's order: subsystem, namespace 1
 * on the device, port, ACL entries, then the port link that makes it reachable. Re-applying a record that is
 * already in place changes nothing. Its clients are host NQNs; a deny drains the host's controllers.
 */
public final class Exporter implements ProtocolExporter<ExportRecord, Nqn> {
    /** Every volume is namespace 1 of its own subsystem. */
    public static final NamespaceId NSID = NamespaceId.of(1);
    private static final Logger LOG = Logger.getLogger(Exporter.class.getName());

    private final NvmetTarget target;
    private final HostTlsKeys tlsKeys;
    private final Map<Nqn, RecordedAuth> newestKeys = new ConcurrentHashMap<>();

    public Exporter(NvmetTarget target) {
        this.target = target;
        this.tlsKeys = new HostTlsKeys(target::tlsKeys);
    }

    @Override
    public Class<ExportRecord> records() {
        return ExportRecord.class;
    }

    @Override
    public String where() {
        return "the kernel";
    }

    /**
     * The first nvmet namespace, of any subsystem, whose {@code device_path} names {@code device}: the same path,
     * or a path of the same device ({@link DeviceIdentity}); enabled or not (a disabled one is someone's set-up).
     */
    @Override
    public Optional<String> device(Path device) {
        Optional<DeviceIdentity> identity = DeviceIdentity.of(device);
        for (Map.Entry<String, List<SubsystemState.Namespace>> subsystem : target.namespaces().entrySet()) {
            for (SubsystemState.Namespace ns : subsystem.getValue()) {
                if (!ns.devicePath().isEmpty() && (Path.of(ns.devicePath()).equals(device)
                        || identity.isPresent() && DeviceIdentity.of(Path.of(ns.devicePath())).equals(identity))) {
                    return Optional.of("nvmet subsystem " + Texts.printable(subsystem.getKey()) + " has it as namespace "
                            + ns.nsid().value() + " (" + (ns.enabled() ? "enabled" : "disabled") + ", device_path "
                            + Texts.printable(ns.devicePath()) + ")");
                }
            }
        }
        return Optional.empty();
    }

    /** None: nvmet exports block devices only. */
    @Override
    public Optional<String> directory(Path directory) {
        return Optional.empty();
    }

    /**
     * The differences between the record and what the kernel holds, in words; empty when in sync.
     */
    @Override
    public List<String> drift(ExportRecord record) {
        WantedExport wanted = wanted(record);
        List<String> drift = new java.util.ArrayList<>(target.inspect(record.subsystem()).map(actual -> ExportDrift.of(wanted, actual))
                .orElseGet(() -> ExportDrift.missing(wanted)));
        drift.addAll(tlsKeys.drift(record));
        return drift;
    }

    /** The pillar-csi subsystems the kernel holds (their NQNs carry {@link ExportRecord#NQN_PREFIX}). */
    public List<Nqn> exportedSubsystems() {
        return target.subsystems().stream().filter(n -> n.value().startsWith(ExportRecord.NQN_PREFIX)).toList();
    }

    /**
     * Makes the kernel hold exactly the record: what it lists is created, what it does not list on
     * the volume's subsystem (another port, a host, a namespace, another device) is removed, so that
     * {@link #drift} finds nothing afterwards. Not synchronized: the target keeps a removal that drops
     * a shared port from running between another export's port set-up and its link, and holds no lock
     * while one volume's namespace waits on the kernel (see {@link NvmetTarget#ensureExport}).
     */
    @Override
    public void apply(ExportRecord record) {
        learn(List.of(record));
        tlsKeys.put(record, record.psks());
        target.ensureExport(portId(record.address()), wanted(record));
        // one line per export; each configfs step is logged at FINE (on a slow console, many lines cost)
        LOG.info(() -> "exported " + record.subsystem() + " (" + record.device() + ") on " + record.address()
                + (record.aclEnabled() ? " to " + record.allowedHosts().size() + " allowed host(s)" : " to any host"));
    }

    @Override
    public void remove(ExportRecord record) {
        remove(record.subsystem());
        tlsKeys.remove(record, record.psks());
    }

    /** Removes the volume's subsystem, and ports and hosts nothing else uses. */
    public void remove(Nqn subsystem) {
        target.removeSubsystem(subsystem);
        LOG.fine(() -> "removed " + subsystem + " if it was there");
    }

    /**
     * Allows the host, with the newest keys it has when the record has keys for it (never logged); with
     * {@code exclusive} the host alone ({@link NvmetTarget#allowOnlyHost}): every other host is removed,
     * its controllers dropped and drained, and the record must list this host only.
     */
    @Override
    public void allow(ExportRecord record, Nqn host, boolean exclusive) {
        if (exclusive) {
            allowOnly(record, host);
        } else {
            allow(record, host);
        }
    }

    private void allow(ExportRecord record, Nqn host) {
        learn(List.of(record));
        tlsKeys.put(record, HostTlsKeys.of(record, host));
        Optional<HostAuth> auth = Optional.ofNullable(record.keys(newestKeys).get(host));
        target.allowHost(record.subsystem(), host, auth);
        LOG.info(() -> "allowed " + host + " on " + record.subsystem() + auth.map(a -> " with DH-HMAC-CHAP " + a).orElse(""));
    }

    private void allowOnly(ExportRecord record, Nqn host) {
        learn(List.of(record));
        tlsKeys.put(record, HostTlsKeys.of(record, host));
        Optional<HostAuth> auth = Optional.ofNullable(record.keys(newestKeys).get(host));
        target.allowOnlyHost(record.subsystem(), host, auth);
        LOG.info(() -> "allowed " + host + " alone on " + record.subsystem() + auth.map(a -> " with DH-HMAC-CHAP " + a).orElse(""));
    }

    /** Whether the kernel's nvmet authenticates hosts in-band; false when it cannot tell now (nvmet missing). */
    @Override
    public boolean authSupported() {
        return target.authSupported();
    }

    /** {@link #disallow}: the host's controllers are drained before this returns, nothing is left to release. */
    @Override
    public StateRelease deny(ExportRecord before, Nqn host) {
        disallow(before.subsystem(), host);
        tlsKeys.remove(before, HostTlsKeys.of(before, host));
        return StateRelease.DONE;
    }

    /**
     * Whether the kernel's nvmet can require TLS on a port and has the {@code .nvme} keyring for its keys; false
     * when it cannot tell now (nvmet missing). {@code tlshd} is not checked: without it a TLS connect fails.
     */
    public boolean tlsSupported() {
        return target.tlsSupported();
    }

    @Override
    public boolean exported(ExportRecord record) {
        return target.inspect(record.subsystem()).isPresent();
    }

    /** The hosts the subsystem's ACL lists now; none when it admits any host or is not there. */
    @Override
    public Set<Nqn> admitted(ExportRecord record) {
        return target.inspect(record.subsystem()).filter(s -> !s.allowAnyHost())
                .map(s -> s.allowedHosts().stream().flatMap(Exporter::nqn).collect(java.util.stream.Collectors.toSet())).orElse(Set.of());
    }

    /** A host entry's name as an NQN; none for a name that is not one (the kernel checks no grammar). */
    private static java.util.stream.Stream<Nqn> nqn(String name) {
        try {
            return java.util.stream.Stream.of(Nqn.of(name));
        } catch (RuntimeException e) {
            return java.util.stream.Stream.empty();
        }
    }

    /** {@link ExportReapply}: every NVMe-oF record applied, this installation's unrecorded subsystems removed. */
    @Override
    public List<String> reapply(ExportStore store, Map<String, VolumeBackend> backends) {
        return ExportReapply.run(store, this, backends);
    }

    /** Revokes {@code host} on the subsystem and drains it ({@link NvmetTarget#disallowHost}). */
    public void disallow(Nqn subsystem, Nqn host) {
        target.disallowHost(subsystem, host);
        LOG.info(() -> "denied " + host + " on " + subsystem);
    }

    public void revalidate(ExportRecord record) {
        target.revalidateSize(record.subsystem(), NSID);
        LOG.info(() -> "revalidated the size of " + record.subsystem());
    }

    /**
     * Remembers the hosts' keys the records hold, keeping per host the newest: the kernel keeps one set
     * per host entry, so a record with older keys (a rotation that reached other volumes first) never
     * puts them back. Called with every record at start-up, before the first apply.
     */
    public void learn(List<ExportRecord> records) {
        for (ExportRecord record : records) {
            record.auth().forEach((host, keys) -> newestKeys.merge(host, keys, (a, b) -> b.since().isAfter(a.since()) ? b : a));
        }
    }

    private WantedExport wanted(ExportRecord record) {
        return new WantedExport(record.subsystem(), NSID, record.device(), record.address(), record.aclEnabled(),
                record.aclEnabled() ? record.allowedHosts() : Set.of(), record.aclEnabled() ? record.keys(newestKeys) : Map.of());
    }

    /**
     * The nvmet port for an address: derived from the address itself, so every export on the same
     * address shares one port and the same port is found again after a reboot, with no extra state.
     * A CRC32 of "family|traddr|trsvcid" folded into 1..65535; two addresses that collide make
     * {@link NvmetTarget#ensurePort} fail loudly rather than share a port.
     */
    static PortId portId(PortAddress address) {
        CRC32 crc = new CRC32();
        crc.update((address.family().configfsValue() + "|" + address.traddr() + "|" + address.trsvcid())
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return PortId.of((int) (crc.getValue() % PortId.MAX) + 1);
    }
}
