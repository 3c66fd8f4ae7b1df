package pillar.agent.configfs;

import static pillar.agent.configfs.KernelError.Code.EADDRINUSE;
import static pillar.agent.configfs.KernelError.Code.EADDRNOTAVAIL;
import static pillar.agent.configfs.KernelError.Code.EINVAL;
import static pillar.agent.configfs.KernelError.Code.EPERM;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import pillar.agent.configfs.FakeNvmetHosts.Host;
import pillar.agent.configfs.FakeNvmetPorts.Port;
import pillar.agent.configfs.FakeNvmetSubsystems.Subsystem;

/**
 * nvmet as kernel 6.1 (and, with authentication, 6.12) defines it in configfs ({@code drivers/nvme/target/configfs.c}), for
 * {@link FakeConfigfsTree}: what mkdir makes in each directory (attributes with their first values,
 * default groups), what each attribute accepts and shows, which links each directory accepts, and the
 * TCP listener a port starts on its first link. The subsystem side is in {@link FakeNvmetSubsystems},
 * the port side in {@link FakeNvmetPorts}. Values and errors as measured on Debian's 6.1 kernel;
 * {@link ConfigfsTreeKernelIT} runs the same contract there.
 *
 * <p>Attributes pillar-csi never writes ({@code attr_model}, {@code attr_serial}, {@code ana_state}...)
 * only keep what is written, up to the first newline, without the kernel's checks.
 */
final class FakeNvmet {
    static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    private final Random random;
    private final boolean auth;
    private final Set<Path> blockDevices = new HashSet<>();
    private final Set<InetAddress> localAddresses = new HashSet<>();
    private final List<Port> listening = new ArrayList<>();
    private final FakeNvmetControllers controllers = new FakeNvmetControllers(listening);

    /**
     * @param seed for the serial numbers and UUIDs, so that a test's tree is the same on every run
     * @param auth the kernel has DH-HMAC-CHAP (CONFIG_NVME_TARGET_AUTH, Debian's 6.12), see {@link FakeNvmetHosts}
     */
    FakeNvmet(long seed, boolean auth) {
        this.auth = auth;
        this.random = new Random(seed);
        addLocalAddress("127.0.0.1");
        addLocalAddress("::1");
    }

    /** The kernel has NVMe/TCP TLS on its ports ({@code addr_tsas}): Debian's 6.12, as it has authentication. */
    boolean tls() {
        return auth;
    }

    /** A block device the namespaces may open. */
    void addBlockDevice(Path device) {
        blockDevices.add(device);
    }

    /** An address of this host: a port may listen on it (wildcards always may). */
    void addLocalAddress(String address) {
        try {
            localAddresses.add(address.contains(":") ? KernelParsers.ipv6(address) : KernelParsers.ipv4(address));
        } catch (KernelError e) {
            throw new IllegalArgumentException("not an IP literal: " + address, e);
        }
    }

    /** {@code nvmet/}: the item the module registers with configfs. */
    Item root() {
        return new Root();
    }

    boolean isBlockDevice(Path path) {
        return blockDevices.contains(path);
    }

    byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }

    /** bind and listen: EADDRNOTAVAIL for an address not on this host, EADDRINUSE when another port has it. */
    void listen(Port port, InetAddress address, long tcpPort) throws KernelError {
        if (!address.isAnyLocalAddress() && !localAddresses.contains(address)) {
            throw new KernelError(EADDRNOTAVAIL);
        }
        for (Port other : listening) {
            // no SO_REUSEPORT: the same address, or a wildcard on either side, is taken
            if (other.listenPort == tcpPort && (other.listenAddress.equals(address)
                    || other.listenAddress.isAnyLocalAddress() || address.isAnyLocalAddress())) {
                throw new KernelError(EADDRINUSE);
            }
        }
        port.listenAddress = address;
        port.listenPort = tcpPort;
        listening.add(port);
    }

    /** The hosts' controllers on this target. */
    FakeNvmetControllers controllers() {
        return controllers;
    }

    void stopListening(Port port) {
        listening.remove(port);
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
            return new Attribute(() -> value[0], page -> value[0] = KernelParsers.firstLine(page));
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

    private final class HostsGroup extends Item {
        @Override
        Item make(String name) {
            return new Host(name, auth);
        }
    }

    private final class SubsystemsGroup extends Item {
        @Override
        Item make(String name) throws KernelError {
            if (KernelParsers.sysfsStreq(name, DISCOVERY_NQN)) {
                throw new KernelError(EINVAL); // "can't create discovery subsystem through configfs"
            }
            return new Subsystem(FakeNvmet.this);
        }
    }

    private final class PortsGroup extends Item {
        @Override
        Item make(String name) throws KernelError {
            if (KernelNumbers.parse(name, PortId.MAX).isEmpty()) {
                throw new KernelError(EINVAL); // kstrtou16 failed, whatever the reason
            }
            return new Port(FakeNvmet.this);
        }
    }
}
