package pillar.agent.configfs;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

import pillar.api.value.Nqn;

/**
 * The removing half of {@link ConfigfsNvmetTarget}: what a subsystem holds that its export does not
 * list (drift: links from other ports, allowed hosts, namespaces), and the shared port and host entries
 * that nothing uses once those are gone. Every step is idempotent, in the kernel's order (a port link
 * before the port, an allowed-hosts link before the host entry). The caller holds the target's lock.
 */
final class ConfigfsPrune {
    private final ConfigfsFiles fs;
    private final Path subsystems;
    private final Path ports;
    private final Path hosts;

    ConfigfsPrune(ConfigfsFiles fs) {
        this.fs = fs;
        this.subsystems = fs.nvmet().resolve("subsystems");
        this.ports = fs.nvmet().resolve("ports");
        this.hosts = fs.nvmet().resolve("hosts");
    }

    /**
     * Unlinks the subsystem from every port but {@code keep} when that one listens at {@code address}
     * (a port with the right id at another address is unlinked too: unused, it can take the address);
     * each port left linking nothing is removed. Whether a link was removed (its controllers were dropped).
     */
    boolean portLinksExcept(Nqn subsystem, PortId keep, PortAddress address) {
        boolean removed = false;
        for (Path port : fs.list(ports)) {
            OptionalLong id = KernelNumbers.parse(port.getFileName().toString(), PortId.MAX);
            if (id.isPresent() && id.getAsLong() == keep.value() && listensAt(port, address)) {
                continue;
            }
            List<Path> links = fs.linksTo(port.resolve("subsystems"), subsystem.value());
            for (Path link : links) {
                fs.unlinkIfPresent(link, "");
            }
            if (!links.isEmpty()) {
                removed = true;
                portIfUnused(port);
            }
        }
        return removed;
    }

    /**
     * Drops every allowed host of the subsystem that is not in {@code keep}; each host entry left unused
     * goes. Whether one was dropped (its live controllers are not: the caller re-links the ports).
     */
    boolean hostsExcept(Nqn subsystem, Set<Nqn> keep) {
        boolean removed = false;
        Path allowed = subsystems.resolve(subsystem.value()).resolve("allowed_hosts");
        for (Path link : fs.list(allowed)) {
            String host = fs.linkTarget(link);
            if (keep.stream().noneMatch(h -> h.value().equals(host))) {
                fs.unlinkIfPresent(link, "");
                hostIfUnused(host);
                removed = true;
            }
        }
        return removed;
    }

    /** Disables and removes every namespace of the subsystem but {@code keep}. */
    void namespacesExcept(Nqn subsystem, NamespaceId keep) {
        for (Path namespace : fs.list(subsystems.resolve(subsystem.value()).resolve("namespaces"))) {
            if (!namespace.getFileName().toString().equals(keep.dirName())) {
                namespace(namespace);
            }
        }
    }

    /**
     * Disables the namespace when it is enabled on another device than {@code device}, so that it can be
     * pointed at the right one (the kernel refuses a new device_path while enabled: EBUSY).
     */
    void namespaceOnOtherDevice(Nqn subsystem, NamespaceId nsid, String device) {
        Path dir = subsystems.resolve(subsystem.value()).resolve("namespaces").resolve(nsid.dirName());
        Optional<String> enabledOn = fs.isDirectory(dir) && fs.read(dir.resolve("enable")).equals("1")
                ? Optional.of(fs.read(dir.resolve("device_path"))) : Optional.empty();
        if (enabledOn.isPresent() && !enabledOn.get().equals(device)) {
            fs.ensure(dir.resolve("enable"), "0", "");
        }
    }

    /** Disables, then removes, one namespace directory. */
    void namespace(Path dir) {
        fs.ensure(dir.resolve("enable"), "0", "");
        fs.rmdirIfPresent(dir, "");
    }

    /** Removes the port unless it still links a subsystem. */
    void portIfUnused(Path port) {
        if (fs.list(port.resolve("subsystems")).isEmpty()) {
            fs.rmdirIfPresent(port, "ENOTEMPTY here means the port has referrals or extra ANA groups");
        }
    }

    /** Removes {@code hosts/<name>} unless a subsystem still admits it. */
    void hostIfUnused(String name) {
        for (Path subsystem : fs.list(subsystems)) {
            if (!fs.linksTo(subsystem.resolve("allowed_hosts"), name).isEmpty()) {
                return;
            }
        }
        fs.rmdirIfPresent(hosts.resolve(name), "EBUSY here means a subsystem still links the host");
    }

    private boolean listensAt(Path port, PortAddress address) {
        return address.matches(fs.attributes(port, PortAddress.compared()));
    }
}
