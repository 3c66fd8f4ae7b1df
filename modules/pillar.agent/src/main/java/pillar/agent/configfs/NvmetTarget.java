package pillar.agent.configfs;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import pillar.api.value.Nqn;

/**
 * The kernel NVMe-oF target (nvmet): subsystems with namespaces, ports that listen, and the hosts a
 * subsystem admits. The port through which the agent exports a volume.
 *
 * <p><b>Idempotency.</b> Every operation states the end it reaches, not a step to take: asking for
 * what already exists with the same values succeeds and changes nothing; removing what is absent
 * succeeds. A retry after a crash at any point therefore converges.
 *
 * <p><b>Errors.</b> Every operation throws {@link NvmetTargetException} (unchecked) when the kernel
 * refuses a step, when a value read back after writing differs from the value written, or when the
 * wanted state conflicts with the current one in a way the kernel would refuse (for example a live
 * port that listens elsewhere). The message names the configfs path, the kernel's error and a likely
 * cause. An operation that fails may have completed some of its steps; calling it again is safe.
 * Arguments are validated types, so nothing unvalidated reaches a configfs path. A step the kernel
 * does not answer within its deadline fails the operation with an exception that
 * {@link NvmetTargetException#timedOut() timed out}.
 *
 * <p><b>Concurrency.</b> Operations on different subsystems may run at once; one stuck in the kernel
 * on its own subsystem (a namespace whose device hangs) never holds up another's, and a step on the
 * shared ports and host entries is never seen half done by another call.
 *
 * <p>The target configuration lives in kernel memory only: it is lost on reboot and must be applied
 * again from durable state.
 */
public interface NvmetTarget {

    /**
     * Ensures the subsystem exists with the given host policy. {@code allowAnyHost} false means only
     * hosts added with {@link #allowHost} may connect (the production setting). The kernel refuses
     * {@code allowAnyHost} true while the subsystem has allowed hosts.
     */
    void ensureSubsystem(Nqn subsystem, boolean allowAnyHost);

    /**
     * Ensures the namespace exists, backed by {@code device} (a block device path, absolute) and
     * enabled. The subsystem must exist. An enabled namespace backed by another device is an error:
     * the kernel does not change the device of an enabled namespace.
     */
    void ensureNamespace(Nqn subsystem, NamespaceId nsid, Path device);

    /**
     * Ensures the port exists and listens at {@code address}. A port that already links subsystems
     * is live and the kernel refuses to change its address: if it listens elsewhere, this fails and
     * changes nothing.
     */
    void ensurePort(PortId port, PortAddress address);

    /**
     * Ensures the port exports the subsystem (a link {@code ports/<id>/subsystems/<nqn>}). Both must
     * exist. The first link enables the port: the kernel starts listening then, so an address in use
     * or not local fails here.
     */
    void linkPort(PortId port, Nqn subsystem);

    /**
     * Ensures {@code host} may connect to the subsystem (an entry {@code hosts/<hostnqn>} and a link
     * from the subsystem's {@code allowed_hosts/}). The subsystem must exist and must not allow any
     * host. Same as {@link #allowHost(Nqn, Nqn, Optional)} without keys.
     */
    default void allowHost(Nqn subsystem, Nqn host) {
        allowHost(subsystem, host, Optional.empty());
    }

    /**
     * {@link #allowHost(Nqn, Nqn)}, and with {@code auth} the host must authenticate in-band: its keys,
     * hash and group are written to {@code hosts/<hostnqn>/dhchap_*} before the link is made, and a new
     * value replaces the old one also when the host is allowed already (rotation: connected controllers
     * keep their session, every new connect needs the new keys). The entry is the host's, shared by every
     * subsystem that admits it. Without {@code auth} the entry's keys are left as they are. Fails, changing
     * nothing, when the kernel has no authentication ({@link #authSupported()} false).
     */
    void allowHost(Nqn subsystem, Nqn host, Optional<HostAuth> auth);

    /**
     * {@link #allowHost(Nqn, Nqn, Optional)} for a volume one node uses at a time: afterwards the
     * subsystem's allowed hosts are exactly {@code host}, every other one removed, and the port links are
     * made again and drained as by {@link #disallowHost}, also when no other host was listed (an earlier
     * disallow may have stopped between its two steps): no other host's controller survives it, and
     * nothing it sent can still reach the device. {@code host}'s own live controller is dropped too and
     * reconnects by itself.
     */
    void allowOnlyHost(Nqn subsystem, Nqn host, Optional<HostAuth> auth);

    /**
     * Whether the kernel's nvmet authenticates hosts in-band (a host entry has {@code dhchap_key}):
     * probed once with a host entry made and removed at once, false while nvmet is not loaded.
     */
    boolean authSupported();

    /**
     * Whether the kernel's nvmet ports can require TLS ({@code addr_tsas}, kernels from 6.7): probed once on
     * a port made and removed at once, false while nvmet is not loaded. A TLS port also needs the kernel's
     * {@link #tlsKeys()}, which this checks, and {@code tlshd}, which it does not.
     */
    boolean tlsSupported();

    /**
     * The keyring where the target's TLS handshake finds each host's pre-shared key (the kernel's {@code .nvme});
     * {@link pillar.runtime.keys.KeyringException} when the kernel has none.
     */
    pillar.runtime.keys.Keyring tlsKeys();

    /**
     * Revokes {@code host}: once this returns, no controller of it can do I/O on the subsystem and it
     * cannot connect again. Removing the {@code allowed_hosts} link alone only refuses new connects (a
     * live controller keeps working), so every port link of the subsystem is removed and made again,
     * which drops every controller of the subsystem; hosts still allowed reconnect by themselves, each
     * pausing for about its {@code reconnect_delay}, the revoked one is refused. The re-link happens on
     * every call, also when the host was not allowed (the kernel lists no connected controllers, and a
     * retry after a crash between the two steps must still drop them). Removes {@code hosts/<hostnqn>}
     * when no subsystem admits it any more. Succeeds when the subsystem or the entry is absent.
     *
     * <p><b>Drain.</b> The kernel tears dropped controllers down later, and a request one of them already
     * submitted still executes. This returns only once every dropped controller is torn down: nothing
     * the revoked host sent can reach the device afterwards. A teardown the kernel does not finish
     * within the configfs deadline (a hung device) fails the call as timed out; retrying is safe.
     */
    void disallowHost(Nqn subsystem, Nqn host);

    /**
     * Tells the target that the namespace's device has grown, so connected hosts see the new size.
     * The namespace must exist and be enabled.
     */
    void revalidateSize(Nqn subsystem, NamespaceId nsid);

    /**
     * Removes the subsystem and everything that exists only for it, in the order the kernel requires:
     * unlink it from every port, disable and remove its namespaces, drop its allowed hosts, remove it;
     * then remove each port it was linked to that links nothing more and each host entry no subsystem
     * admits any more. Hosts connected to it lose it: unlinking it from its ports drops every
     * controller, and none can connect again. Succeeds when the subsystem is absent (ports and
     * hosts left behind by an earlier call that failed midway are then not looked for: they are inert
     * and the next {@link #ensurePort}/{@link #allowHost} reuses them).
     */
    void removeSubsystem(Nqn subsystem);

    /**
     * Ensures the subsystem is exactly {@code wanted}, exported on {@code port}: what
     * {@link #ensureSubsystem}, {@link #ensureNamespace}, {@link #ensurePort}, {@link #allowHost} and
     * {@link #linkPort} reach together (each host with
     * {@code wanted.auth()}'s keys when it has some), after removing what {@code wanted} does not list (drift): links
     * from other ports (a port left linking nothing is removed), allowed hosts (a host entry no subsystem
     * admits any more is removed), other namespaces, and the device of an enabled namespace that points
     * elsewhere (disabled, pointed at {@code wanted.device()}, enabled). Afterwards {@link ExportDrift}
     * finds nothing. Ports and host entries other subsystems use are never touched. A port with this id
     * that listens elsewhere and exports other subsystems is a conflict, as in {@link #ensurePort}.
     * A host or port link it removes loses its live controllers, drained as by {@link #disallowHost}.
     */
    void ensureExport(PortId port, WantedExport wanted);

    /** Whether the kernel target is there at all: configfs mounted, nvmet loaded (see {@link TargetPresence}). */
    TargetPresence presence();

    /**
     * The subsystems the kernel holds, sorted by NQN; reads only. Directories whose names are not
     * NQNs in pillar-csi's grammar are left out: pillar-csi never makes them. With the NQN prefix of
     * pillar-csi's volumes this finds orphans, subsystems no durable export accounts for.
     */
    List<Nqn> subsystems();

    /**
     * What the kernel holds for the subsystem (namespaces with device and state, host policy, allowed
     * hosts, the ports that export it with their addresses), or empty when it does not exist; reads
     * only. {@link ExportDrift} compares it with the wanted export.
     */
    Optional<SubsystemState> inspect(Nqn subsystem);

    /**
     * The namespaces of every subsystem the kernel holds, by the subsystem directory's name, whoever made it (a
     * name outside pillar-csi's grammar too, unlike {@link #subsystems}): which devices nvmet is backed by. Reads only.
     */
    Map<String, List<SubsystemState.Namespace>> namespaces();
}
