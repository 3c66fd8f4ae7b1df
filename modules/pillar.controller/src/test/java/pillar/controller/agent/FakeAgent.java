package pillar.controller.agent;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import pillar.api.agent.AgentApiLevel;
import pillar.api.agent.v1.Backend;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.HostAuth;
import pillar.api.agent.v1.Problem;
import pillar.api.fencing.FencingMark;

/**
 * One fake pillar-agent: its backends and their capacity, and, like the real agent, its volumes,
 * exports with their allowed hosts, and a fencing mark per volume (the rules of
 * {@link pillar.api.fencing.Fencing}, the same code the agent runs). Every method returns it, for
 * chaining. Faults are injected around it by {@link FaultInjectingAgentClient}.
 */
public final class FakeAgent {
    /** A volume on a backend. */
    public record Volume(String backend, long size, Map<String, String> options, String device) {
    }

    /** An export and the hosts allowed to connect. */
    public record Export(String backend, ExportSpec spec, Set<String> allowedHosts) {
    }

    /** A backend's pool as GetVolumeHealth reports it: zpool health, or a thin pool's usage. */
    public record PoolState(String health, Optional<pillar.api.agent.v1.ThinPoolUsage> thin) {
    }

    /** A snapshot on a backend: its source, the source's size when taken, and when. */
    public record Snapshot(String backend, String source, long size, long createdSeconds) {
    }

    /**
     * The drift GetVolumeHealth and ListExports report for an exported volume, by volume ID (as the agent
     * finds it in the kernel); a Reconcile that keeps the export re-applies it (clears it), as the agent's
     * does, unless the volume is in {@link #stuckDrift}.
     */
    final Map<String, List<String>> drift = new HashMap<>();
    /** Volumes whose drift a Reconcile cannot repair: the kernel refuses the re-apply (the call fails). */
    final java.util.Set<String> stuckDrift = new java.util.HashSet<>();
    final Map<String, PoolState> pools = new HashMap<>();
    private boolean up = true;
    private boolean nvmeAuth;
    private boolean nvmeTls;
    /** The TLS pre-shared key each allowed host was given, by volume ID and host NQN. */
    final Map<String, Map<String, String>> tlsPsk = new TreeMap<>();
    private boolean nfsRootSquash = true;
    private boolean nfsTls;
    /** The DH-HMAC-CHAP secrets each allowed host was given, by volume ID and host NQN. */
    final Map<String, Map<String, HostAuth>> hostAuth = new TreeMap<>();
    /** NFS: per volume, the client addresses allowed read-only (AllowInitiator's read_only). */
    final Map<String, Set<String>> readOnly = new TreeMap<>();
    private Problem problem;
    private List<String> damagedRecords = List.of();
    private String version = "0.1.0-test";
    private int apiLevel = AgentApiLevel.CURRENT;
    private boolean volumesHealth = true;
    private int oldestControllerLevel = AgentApiLevel.OLDEST_CONTROLLER;
    final Map<String, Backend> backends = new LinkedHashMap<>();
    final Map<String, long[]> capacity = new HashMap<>();
    final Map<String, Volume> volumes = new TreeMap<>();
    final Map<String, Export> exports = new TreeMap<>();
    final Map<String, FencingMark> marks = new HashMap<>();
    /** The snapshots not deleted, by snapshot ID. */
    final Map<String, Snapshot> snapshots = new TreeMap<>();
    /** What each volume made from a source was made from ({@code snapshot:<id>} or {@code volume:<id>}), by volume ID. */
    final Map<String, String> contents = new HashMap<>();
    /** The copy mode each volume made from a source was asked to be made with, by volume ID. */
    final Map<String, pillar.api.agent.v1.CopyMode> copyModes = new HashMap<>();
    /**
     * Volumes on a backend that no installation marked (made by hand, or by an earlier system): what
     * AdoptVolume takes; CreateVolume's and adopted ones are this installation's and not in it.
     */
    final Set<String> unmarked = new java.util.HashSet<>();
    /** Volumes marked by another installation, by volume ID: AdoptVolume refuses them (VOLUME_FOREIGN). */
    final Map<String, String> foreign = new HashMap<>();
    /** Volumes open on the storage node (mounted, held, exported by something else): AdoptVolume refuses them. */
    final Set<String> open = new java.util.HashSet<>();
    private boolean adopts = true;
    /** The snapshots' own fencing marks (the agent keeps them apart from the volumes'). */
    final Map<String, FencingMark> snapshotMarks = new HashMap<>();

    public synchronized boolean isUp() {
        return up;
    }

    public synchronized FakeAgent up() {
        up = true;
        return this;
    }

    public synchronized FakeAgent down() {
        up = false;
        return this;
    }

    /**
     * Whether the kernel can authenticate hosts in-band (GetCapabilities' nvme_auth); off by default,
     * as on Debian 12's 6.1: an export with auth_required is then FAILED_PRECONDITION NvmeAuthUnsupported.
     */
    public synchronized FakeAgent nvmeAuth(boolean supported) {
        nvmeAuth = supported;
        return this;
    }

    synchronized boolean nvmeAuth() {
        return nvmeAuth;
    }

    /**
     * Whether the kernel can require TLS on its ports (GetCapabilities' nvme_tls); off by default, as on
     * Debian 12's 6.1 and on an agent of a release before TLS: an export with tls_required is then
     * FAILED_PRECONDITION NvmeTlsUnsupported.
     */
    public synchronized FakeAgent nvmeTls(boolean supported) {
        nvmeTls = supported;
        return this;
    }

    synchronized boolean nvmeTls() {
        return nvmeTls;
    }

    /** The TLS key a host was last given on a volume's export (AllowInitiator replaces it). */
    public synchronized Optional<String> tlsPsk(String volumeId, String hostNqn) {
        return Optional.ofNullable(tlsPsk.getOrDefault(volumeId, Map.of()).get(hostNqn));
    }

    /**
     * Whether nfsd can require RPC-with-TLS (GetCapabilities' nfs_tls); off by default, as on Debian 12 (nfs-utils 2.6.2)
     * and on an agent of a release before it: an NFS export with tls_required is then FAILED_PRECONDITION.
     */
    public synchronized FakeAgent nfsTls(boolean supported) {
        nfsTls = supported;
        return this;
    }

    synchronized boolean nfsTls() {
        return nfsTls;
    }

    /** Whether it honours ExportSpec.nfs_root_squash (true; false: an agent of an earlier release). */
    public synchronized FakeAgent nfsRootSquash(boolean supported) {
        nfsRootSquash = supported;
        return this;
    }

    synchronized boolean nfsRootSquash() {
        return nfsRootSquash;
    }

    /** The secrets a host was last given on a volume's export (AllowInitiator replaces them). */
    public synchronized Optional<HostAuth> hostAuth(String volumeId, String hostNqn) {
        return Optional.ofNullable(hostAuth.getOrDefault(volumeId, Map.of()).get(hostNqn));
    }

    /**
     * The agent API levels GetCapabilities reports: {@code level} spoken and the oldest controller level
     * served; {@code (0, 0)} answers as an agent from before levels. Default: this release's.
     */
    public synchronized FakeAgent apiLevels(int level, int oldestController) {
        apiLevel = level;
        oldestControllerLevel = oldestController;
        return this;
    }

    /** An agent of before GetVolumesHealth: it answers that call UNIMPLEMENTED (the default serves it). */
    public synchronized FakeAgent withoutVolumesHealth() {
        volumesHealth = false;
        return this;
    }

    synchronized boolean volumesHealth() {
        return volumesHealth;
    }

    synchronized int apiLevel() {
        return apiLevel;
    }

    synchronized int oldestControllerLevel() {
        return oldestControllerLevel;
    }

    public synchronized FakeAgent version(String version) {
        this.version = version;
        return this;
    }

    synchronized String version() {
        return version;
    }

    /** The agent's configuration no longer has that backend: calls naming it are INVALID_ARGUMENT, as the agent's. */
    public synchronized FakeAgent forgetBackend(String name) {
        backends.remove(name);
        return this;
    }

    /**
     * Configures a backend (replacing one of that name); its capacity starts at 0. As the agent's,
     * it takes snapshots unless it is an LVM linear volume group.
     */
    public synchronized FakeAgent backend(String name, BackendKind kind, String pool, String parent) {
        backends.put(name, Backend.newBuilder().setName(name).setKind(kind).setPool(pool).setParent(parent)
                .setSnapshots(kind != BackendKind.BACKEND_KIND_LVM_LINEAR).build());
        return this;
    }

    /**
     * The agent's own problem (as the agent reports {@code AgentStateMissing}): in GetCapabilities,
     * and every lifecycle call is refused (FAILED_PRECONDITION) while it is set; null clears it.
     */
    public synchronized FakeAgent problem(String reason, String message) {
        problem = reason == null ? null : Problem.newBuilder().setReason(reason).setMessage(message).build();
        return this;
    }

    synchronized Optional<Problem> problem() {
        return Optional.ofNullable(problem);
    }

    /** The damaged records it lists in GetCapabilities, one line each (none clears them). */
    public synchronized FakeAgent damagedRecords(String... lines) {
        damagedRecords = List.of(lines);
        return this;
    }

    synchronized List<String> damagedRecords() {
        return damagedRecords;
    }

    /**
     * A backend's problem in GetCapabilities (null clears it); {@code ThinPoolNotZeroing} also makes
     * CreateVolume on it FAILED_PRECONDITION unless the request accepts a non-zeroing thin pool.
     */
    public synchronized FakeAgent backendProblem(String name, String reason, String message) {
        Backend.Builder backend = backends.get(name).toBuilder();
        if (reason == null) {
            backend.clearProblem();
        } else {
            backend.setProblem(Problem.newBuilder().setReason(reason).setMessage(message));
        }
        backends.put(name, backend.build());
        return this;
    }

    /** The backend's size and the bytes free before any volume this fake creates. */
    public synchronized FakeAgent capacity(String backend, long total, long available) {
        capacity.put(backend, new long[] {total, available});
        return this;
    }

    /** The kernel's export of the volume differs from the agent's record thus (empty: in sync again). */
    public synchronized FakeAgent drift(String volumeId, String... lines) {
        drift.put(volumeId, List.of(lines));
        stuckDrift.remove(volumeId);
        return this;
    }

    /** {@link #drift}, and the kernel refuses its re-apply: a Reconcile of the volume fails and the drift stays. */
    public synchronized FakeAgent stuckDrift(String volumeId, String... lines) {
        drift(volumeId, lines);
        stuckDrift.add(volumeId);
        return this;
    }

    /**
     * An existing zvol, dataset or LV of that name and size on a configured backend that carries no
     * installation's mark (an operator made it): AdoptVolume can take it. Its device is where the
     * agent's would be.
     */
    public synchronized FakeAgent existingVolume(String volumeId, String backend, long size) {
        volumes.put(volumeId, new Volume(backend, size, Map.of(), FakeAgentClient.device(backends.get(backend), volumeId)));
        unmarked.add(volumeId);
        foreign.remove(volumeId);
        return this;
    }

    /** {@link #existingVolume}, marked by another installation of that ID: AdoptVolume refuses it as foreign. */
    public synchronized FakeAgent foreignVolume(String volumeId, String backend, long size, String installation) {
        existingVolume(volumeId, backend, size);
        unmarked.remove(volumeId);
        foreign.put(volumeId, installation);
        return this;
    }

    /** Whether something on the storage node holds the volume open (AdoptVolume refuses an unmarked one then). */
    public synchronized FakeAgent open(String volumeId, boolean isOpen) {
        if (isOpen) {
            open.add(volumeId);
        } else {
            open.remove(volumeId);
        }
        return this;
    }

    /** Whether it serves AdoptVolume (the default); false: an agent of before it, which answers UNIMPLEMENTED. */
    public synchronized FakeAgent servesAdoptVolume(boolean served) {
        adopts = served;
        return this;
    }

    synchronized boolean adopts() {
        return adopts;
    }

    /** Whether the volume exists and carries this installation's marks (created or adopted here). */
    public synchronized boolean owns(String volumeId) {
        return volumes.containsKey(volumeId) && !unmarked.contains(volumeId) && !foreign.containsKey(volumeId);
    }

    /** The zvol or LV is gone behind the agent (an operator's lvremove or zfs destroy); its export record stays. */
    public synchronized FakeAgent loseVolume(String volumeId) {
        volumes.remove(volumeId);
        return this;
    }

    /** The agent lost the volume's export record (its state directory wiped): it holds no export of it. */
    public synchronized FakeAgent loseExport(String volumeId) {
        exports.remove(volumeId);
        return this;
    }

    /** The ZFS pool under a backend reports this health (ONLINE, DEGRADED, ...). */
    public synchronized FakeAgent poolHealth(String backend, String health) {
        pools.put(backend, new PoolState(health, Optional.empty()));
        return this;
    }

    /** The thin pool under a backend is this full, in percent of its data and metadata. */
    public synchronized FakeAgent thinUsage(String backend, String name, double data, double metadata) {
        pools.put(backend, new PoolState("", Optional.of(pillar.api.agent.v1.ThinPoolUsage.newBuilder().setName(name)
                .setDataPercent(data).setMetadataPercent(metadata).build())));
        return this;
    }

    /** The volumes, by ID. */
    public synchronized Map<String, Volume> volumes() {
        return Map.copyOf(volumes);
    }

    /** The exports, by volume ID. */
    public synchronized Map<String, Export> exports() {
        return Map.copyOf(exports);
    }

    /** The hosts allowed on a volume's export, sorted; empty when it is not exported. */
    /** NFS: the client addresses of the volume's export allowed read-only, sorted. */
    public synchronized List<String> readOnlyHosts(String volumeId) {
        return List.copyOf(new TreeSet<>(readOnly.getOrDefault(volumeId, Set.of())));
    }

    public synchronized List<String> allowedHosts(String volumeId) {
        Export export = exports.get(volumeId);
        return export == null ? List.of() : List.copyOf(new TreeSet<>(export.allowedHosts()));
    }

    /** The snapshots not deleted, by snapshot ID. */
    public synchronized Map<String, Snapshot> snapshots() {
        return Map.copyOf(snapshots);
    }

    /** What a volume was made from: {@code snapshot:<id>} or {@code volume:<id>}; empty for a new, zeroed one. */
    public synchronized Optional<String> content(String volumeId) {
        return Optional.ofNullable(contents.get(volumeId));
    }

    /** The copy mode a volume made from a source was asked for. */
    public synchronized Optional<pillar.api.agent.v1.CopyMode> copyMode(String volumeId) {
        return Optional.ofNullable(copyModes.get(volumeId));
    }

    /** The volume's fencing mark, if a fenced call ever reached it. */
    public synchronized Optional<FencingMark> mark(String volumeId) {
        return Optional.ofNullable(marks.get(volumeId));
    }

    /** Bytes free on a backend: what was configured, less the volumes. */
    synchronized long available(String backend) {
        long[] c = capacity.get(backend);
        long used = volumes.values().stream().filter(v -> v.backend().equals(backend)).mapToLong(Volume::size).sum();
        return (c == null ? 0 : c[1]) - used;
    }
}
