package pillar.agent.configfs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;

/**
 * The read side of {@link ConfigfsNvmetTarget}: the subsystems in the tree and what each holds. Reads
 * only; a tree that changes while it reads may make it fail (callers serialise per volume).
 */
final class ConfigfsStateReader {
    /** What {@code device_path} shows before it is set. */
    static final String UNSET_DEVICE = "(null)";

    private final ConfigfsFiles fs;
    private final Path subsystems;
    private final Path ports;

    ConfigfsStateReader(ConfigfsFiles fs) {
        this.fs = fs;
        this.subsystems = fs.nvmet().resolve("subsystems");
        this.ports = fs.nvmet().resolve("ports");
    }

    /** The subsystems whose names are NQNs in pillar-csi's grammar, sorted by name. */
    List<Nqn> subsystems() {
        List<Nqn> found = new ArrayList<>();
        for (Path dir : fs.list(subsystems)) {
            try {
                found.add(Nqn.of(dir.getFileName().toString()));
            } catch (InvalidValueException e) {
                // not made by pillar-csi, which makes only valid NQNs: not ours to report or remove
            }
        }
        found.sort(Comparator.comparing(Nqn::value));
        return List.copyOf(found);
    }

    Optional<SubsystemState> inspect(Nqn nqn) {
        Path dir = subsystems.resolve(nqn.value());
        if (!fs.isDirectory(dir)) {
            if (!fs.isDirectory(subsystems)) {
                fs.list(subsystems); // fails with the hint about configfs and the nvmet modules
            }
            return Optional.empty();
        }
        boolean allowAnyHost = fs.read(dir.resolve("attr_allow_any_host")).equals("1");
        List<SubsystemState.Namespace> namespaces = namespaces(dir, false);
        List<String> hosts = new ArrayList<>();
        for (Path link : fs.list(dir.resolve("allowed_hosts"))) {
            hosts.add(fs.linkTarget(link));
        }
        hosts.sort(Comparator.naturalOrder());
        Map<String, SubsystemState.HostKeys> keys = new HashMap<>();
        for (String host : hosts) {
            Path entry = fs.nvmet().resolve("hosts").resolve(host);
            if (fs.exists(entry.resolve("dhchap_key"))) {
                SubsystemState.HostKeys found = new SubsystemState.HostKeys(fs.read(entry.resolve("dhchap_key")),
                        fs.read(entry.resolve("dhchap_ctrl_key")), fs.read(entry.resolve("dhchap_hash")),
                        fs.read(entry.resolve("dhchap_dhgroup")));
                if (!found.key().isEmpty() || !found.controllerKey().isEmpty()) {
                    keys.put(host, found); // a host without keys is admitted by its NQN alone
                }
            }
        }
        return Optional.of(new SubsystemState(nqn, allowAnyHost, namespaces, hosts, linkedPorts(nqn), keys));
    }

    /**
     * The namespaces of every subsystem directory, whatever its name (another tool's too), by that name; a
     * subsystem or namespace removed while this reads is left out.
     */
    Map<String, List<SubsystemState.Namespace>> namespaces() {
        Map<String, List<SubsystemState.Namespace>> all = new TreeMap<>();
        for (Path dir : fs.list(subsystems)) {
            List<SubsystemState.Namespace> namespaces = namespaces(dir, true);
            if (fs.isDirectory(dir)) {
                all.put(dir.getFileName().toString(), namespaces);
            }
        }
        return all;
    }

    /** The subsystem's namespaces by nsid; with {@code skipGone} one removed meanwhile is left out rather than failing. */
    private List<SubsystemState.Namespace> namespaces(Path dir, boolean skipGone) {
        List<SubsystemState.Namespace> namespaces = new ArrayList<>();
        for (Path ns : fs.list(dir.resolve("namespaces"))) {
            OptionalLong nsid = KernelNumbers.parse(ns.getFileName().toString(), NamespaceId.MAX);
            if (nsid.isEmpty()) {
                continue; // never: the kernel made the directory only for a valid nsid
            }
            try {
                String device = fs.read(ns.resolve("device_path"));
                namespaces.add(new SubsystemState.Namespace(NamespaceId.of(nsid.getAsLong()),
                        device.equals(UNSET_DEVICE) ? "" : device, fs.read(ns.resolve("enable")).equals("1")));
            } catch (NvmetTargetException e) {
                if (!skipGone || fs.exists(ns)) {
                    throw e;
                }
            }
        }
        namespaces.sort(Comparator.comparingLong(n -> n.nsid().value()));
        return namespaces;
    }

    private List<SubsystemState.LinkedPort> linkedPorts(Nqn nqn) {
        List<SubsystemState.LinkedPort> linked = new ArrayList<>();
        for (Path port : fs.list(ports)) {
            OptionalLong id = KernelNumbers.parse(port.getFileName().toString(), PortId.MAX);
            if (id.isPresent() && !fs.linksTo(port.resolve("subsystems"), nqn.value()).isEmpty()) {
                linked.add(new SubsystemState.LinkedPort(PortId.of((int) id.getAsLong()), fs.read(port.resolve("addr_trtype")),
                        fs.read(port.resolve("addr_adrfam")), fs.read(port.resolve("addr_traddr")),
                        fs.read(port.resolve("addr_trsvcid")), security(port)));
            }
        }
        linked.sort(Comparator.comparingInt(p -> p.id().value()));
        return linked;
    }

    /** The port's {@code addr_tsas}; plaintext on a kernel without it. */
    private String security(Path port) {
        Path tsas = port.resolve(PortAddress.TSAS);
        return fs.exists(tsas) ? fs.read(tsas) : PortAddress.PLAINTEXT;
    }
}
