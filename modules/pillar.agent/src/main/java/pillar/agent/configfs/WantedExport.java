package pillar.agent.configfs;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import pillar.api.value.Nqn;

/**
 * The export of one volume as the agent wants it in the kernel, the side {@link ExportDrift} compares
 * the {@linkplain NvmetTarget#inspect inspected} state with.
 *
 * @param subsystem    the volume's subsystem
 * @param nsid         the namespace that carries the volume (pillar-csi uses 1)
 * @param device       the block device the namespace points at
 * @param address      where the subsystem is exported
 * @param aclEnabled   true: only {@code allowedHosts} may connect; false: any host may
 * @param allowedHosts the hosts admitted when {@code aclEnabled} (ignored otherwise)
 * @param auth         the allowed hosts that authenticate in-band, with their keys; the others are
 *                     admitted by NQN alone
 */
public record WantedExport(Nqn subsystem, NamespaceId nsid, Path device, PortAddress address, boolean aclEnabled,
                           Set<Nqn> allowedHosts, Map<Nqn, HostAuth> auth) {

    public WantedExport {
        allowedHosts = Set.copyOf(allowedHosts);
        auth = Map.copyOf(auth);
    }

    /** An export whose hosts are admitted by NQN alone. */
    public WantedExport(Nqn subsystem, NamespaceId nsid, Path device, PortAddress address, boolean aclEnabled,
                        Set<Nqn> allowedHosts) {
        this(subsystem, nsid, device, address, aclEnabled, allowedHosts, Map.of());
    }
}
