package pillar.agent.export;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import pillar.agent.configfs.PortAddress;
import pillar.api.value.Nqn;
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
 */
public record ExportRecord(VolumeId volume, String backend, Path device, PortAddress address, boolean aclEnabled,
                           Set<Nqn> allowedHosts) {
    /** The NQN prefix of every subsystem pillar-csi creates; the rest of the NQN is the volume ID. */
    public static final String NQN_PREFIX = "nqn.2024-06.io.pillar-csi:";

    public ExportRecord {
        if (!device.isAbsolute()) {
            throw new IllegalArgumentException("device must be an absolute path, is " + device);
        }
        allowedHosts = Set.copyOf(allowedHosts);
    }

    /** The stable subsystem NQN of a volume, derived from its validated ID. */
    public static Nqn subsystemNqn(VolumeId volume) {
        return Nqn.of(NQN_PREFIX + volume.value());
    }

    public Nqn subsystem() {
        return subsystemNqn(volume);
    }

    public ExportRecord withDevice(Path newDevice) {
        return new ExportRecord(volume, backend, newDevice, address, aclEnabled, allowedHosts);
    }

    public ExportRecord withAllowedHosts(Set<Nqn> hosts) {
        return new ExportRecord(volume, backend, device, address, aclEnabled, hosts);
    }

    String encode() {
        return "version=1\n"
                + "volume=" + volume.value() + "\n"
                + "backend=" + backend + "\n"
                + "device=" + device + "\n"
                + "traddr=" + address.traddr() + "\n"
                + "trsvcid=" + address.trsvcid() + "\n"
                + "acl=" + aclEnabled + "\n"
                + "hosts=" + allowedHosts.stream().map(Nqn::value).sorted().collect(Collectors.joining(",")) + "\n";
    }

    /** Parses {@link #encode()}; anything else (a damaged file) throws {@link IllegalArgumentException}. */
    static ExportRecord parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!"1".equals(p.getProperty("version")) || p.size() != 8) {
            throw new IllegalArgumentException("export record: unknown version or missing fields");
        }
        String acl = p.getProperty("acl");
        if (!acl.equals("true") && !acl.equals("false")) {
            throw new IllegalArgumentException("export record: acl must be true or false");
        }
        String hosts = p.getProperty("hosts");
        Set<Nqn> allowed = hosts.isEmpty() ? Set.of()
                : Arrays.stream(hosts.split(",")).map(Nqn::of).collect(Collectors.toSet());
        int port;
        try {
            port = Integer.parseInt(p.getProperty("trsvcid"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("export record: trsvcid is not a number", e);
        }
        return new ExportRecord(VolumeId.of(p.getProperty("volume")), p.getProperty("backend"),
                Path.of(p.getProperty("device")), PortAddress.tcp(p.getProperty("traddr"), port),
                Boolean.parseBoolean(acl), allowed);
    }
}
