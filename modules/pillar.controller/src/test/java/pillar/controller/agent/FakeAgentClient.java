package pillar.controller.agent;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.AdoptVolumeResponse;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.AllowInitiatorResponse;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.CopyMode;
import pillar.api.agent.v1.CreateSnapshotRequest;
import pillar.api.agent.v1.CreateSnapshotResponse;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.CreateVolumeResponse;
import pillar.api.agent.v1.DeleteSnapshotRequest;
import pillar.api.agent.v1.DeleteSnapshotResponse;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeResponse;
import pillar.api.agent.v1.DenyInitiatorRequest;
import pillar.api.agent.v1.DenyInitiatorResponse;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExpandVolumeResponse;
import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ExportVolumeResponse;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.HostAuth;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.GetCapacityResponse;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumeHealthResponse;
import pillar.api.agent.v1.GetVolumesHealthRequest;
import pillar.api.agent.v1.GetVolumesHealthResponse;
import pillar.api.agent.v1.VolumeHealthError;
import pillar.api.agent.v1.VolumeHealthResult;
import pillar.api.agent.HealthBatch;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.ListExportsResponse;
import pillar.api.agent.v1.ListSnapshotsRequest;
import pillar.api.agent.v1.ListSnapshotsResponse;
import pillar.api.agent.v1.ListVolumesRequest;
import pillar.api.agent.v1.ListVolumesResponse;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.api.agent.v1.ReconcileResponse;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.agent.v1.UnexportVolumeResponse;
import pillar.api.fencing.Fencing;
import pillar.api.fencing.FencingMark;
import pillar.api.fencing.FencingToken;
import pillar.api.fencing.FencingViolation;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.api.value.VolumeId;

/**
 * A stateful stand-in for the agents of a cluster: each endpoint ({@code host:port}) has a
 * {@link FakeAgent} that is up or down. It answers like the real agent: values validated first
 * (INVALID_ARGUMENT), the fencing rules of {@link Fencing} with a mark per volume written before
 * acting (FAILED_PRECONDITION), idempotent creates, exports, grants and deletes, ALREADY_EXISTS for
 * a volume of another size, NO_SPACE when the backend is full. Calls to an endpoint with no agent,
 * or a stopped one, fail as a real unreachable agent does. Every call is recorded.
 */
public final class FakeAgentClient implements AgentClient {
    /** The NQN prefix the agent gives each volume's subsystem. */
    public static final String NQN_PREFIX = "nqn.2024-06.io.pillar-csi:";
    private static final Set<String> ZFS_OPTIONS = Set.of("sparse", "volblocksize", "compression");

    private final Map<String, FakeAgent> agents = new HashMap<>();
    private final List<String> calls = new ArrayList<>();

    /** The agent at that endpoint, created (up, no backends) on first use. */
    public synchronized FakeAgent agent(String host, int port) {
        return agents.computeIfAbsent(AgentTarget.plaintext(host, port).endpoint(), e -> new FakeAgent());
    }

    /** Every call so far, as {@code "GetCapacity 10.0.0.1:9500 fast"}. */
    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    @Override
    public GetCapabilitiesResponse getCapabilities(AgentTarget target, GetCapabilitiesRequest request) {
        FakeAgent agent = reach(target, "GetCapabilities", "");
        synchronized (agent) {
            GetCapabilitiesResponse.Builder capabilities = GetCapabilitiesResponse.newBuilder().setAgentVersion(agent.version())
                    .addAllBackends(agent.backends.values()).addExportProtocols(ExportProtocol.EXPORT_PROTOCOL_NVMEOF_TCP).setNvmeAuth(agent.nvmeAuth())
                    .setNvmeTls(agent.nvmeTls())
                    .setNfsRootSquash(agent.nfsRootSquash())
                    .setNfsTls(agent.nfsTls())
                    .setApiLevel(agent.apiLevel()).setOldestControllerLevel(agent.oldestControllerLevel());
            agent.problem().ifPresent(capabilities::setProblem);
            capabilities.addAllDamagedRecords(agent.damagedRecords());
            return capabilities.build();
        }
    }

    @Override
    public GetCapacityResponse getCapacity(AgentTarget target, GetCapacityRequest request) {
        return onBackend(target, "GetCapacity", request.getBackend(), agent -> {
            long[] capacity = agent.capacity.get(request.getBackend());
            return GetCapacityResponse.newBuilder().setTotalBytes(capacity == null ? 0 : capacity[0])
                    .setAvailableBytes(Math.max(0, agent.available(request.getBackend()))).build();
        });
    }

    @Override
    public CreateVolumeResponse createVolume(AgentTarget target, CreateVolumeRequest r) {
        return fenced(target, "CreateVolume", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, agent -> {
            backend(target, "CreateVolume", agent, r.getBackend());
            check(r.getSizeBytes() > 0, "size_bytes: must be greater than 0");
            pillar.api.agent.v1.Backend backend = agent.backends.get(r.getBackend());
            if (backend.hasProblem() && "ThinPoolNotZeroing".equals(backend.getProblem().getReason())
                    && !r.getAcceptNonZeroingThinPool()) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION, "CreateVolume", target,
                        "FAILED_PRECONDITION: " + backend.getProblem().getMessage());
            }
        }, (agent, done) -> {
            BackendKind kind = agent.backends.get(r.getBackend()).getKind();
            Set<String> allowed = kind == BackendKind.BACKEND_KIND_ZFS_ZVOL ? ZFS_OPTIONS
                    : kind == BackendKind.BACKEND_KIND_ZFS_DATASET ? Set.of("compression") : Set.of();
            check(allowed.containsAll(r.getOptionsMap().keySet()), "options: " + r.getOptionsMap().keySet() + " are not all in " + allowed);
            Optional<String> content = r.hasSource() ? Optional.of(content(target, agent, r)) : Optional.empty();
            FakeAgent.Volume existing = agent.volumes.get(r.getVolumeId());
            if (existing != null) {
                if (existing.size() != r.getSizeBytes() || !existing.backend().equals(r.getBackend())
                        || !content.equals(Optional.ofNullable(agent.contents.get(r.getVolumeId())))) {
                    throw new AgentException(AgentException.Kind.ALREADY_EXISTS, "CreateVolume", target, "ALREADY_EXISTS: volume "
                            + r.getVolumeId() + " exists with " + existing.size() + " bytes on " + existing.backend());
                }
                return CreateVolumeResponse.newBuilder().setVolume(proto(r.getVolumeId(), existing)).build();
            }
            if (agent.available(r.getBackend()) < r.getSizeBytes()) {
                throw new AgentException(AgentException.Kind.NO_SPACE, "CreateVolume", target,
                        "RESOURCE_EXHAUSTED: backend " + r.getBackend() + " has " + agent.available(r.getBackend()) + " bytes free");
            }
            FakeAgent.Volume volume = new FakeAgent.Volume(r.getBackend(), r.getSizeBytes(), Map.copyOf(r.getOptionsMap()),
                    device(agent.backends.get(r.getBackend()), r.getVolumeId()));
            agent.volumes.put(r.getVolumeId(), volume);
            content.ifPresent(c -> {
                agent.contents.put(r.getVolumeId(), c);
                agent.copyModes.put(r.getVolumeId(), r.getSource().getMode());
            });
            return CreateVolumeResponse.newBuilder().setVolume(proto(r.getVolumeId(), volume)).build();
        });
    }

    /**
     * As the agent: an unmarked volume of that name on the backend is marked as this installation's and
     * answered with its size, and one this installation owns already is answered as it is (a retry, fenced
     * like any change). Refused before the fencing mark is touched, changing nothing: missing (NOT_FOUND),
     * another installation's (VOLUME_FOREIGN), an unmarked one held open (VOLUME_IN_USE), smaller than
     * min_size_bytes (OUT_OF_RANGE). An agent of before the call answers UNIMPLEMENTED.
     */
    @Override
    public AdoptVolumeResponse adoptVolume(AgentTarget target, AdoptVolumeRequest r) {
        FakeAgent served;
        synchronized (this) {
            served = agents.get(target.endpoint());
        }
        if (served != null && !served.adopts()) {
            reach(target, "AdoptVolume", r.getVolumeId());
            throw new AgentException(AgentException.Kind.UNSUPPORTED, "AdoptVolume", target,
                    "UNIMPLEMENTED: Method not found: pillar.agent.v1.AgentService/AdoptVolume");
        }
        return fenced(target, "AdoptVolume", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, agent -> {
            backend(target, "AdoptVolume", agent, r.getBackend());
            FakeAgent.Volume volume = agent.volumes.get(r.getVolumeId());
            if (volume == null || !volume.backend().equals(r.getBackend())) {
                throw new AgentException(AgentException.Kind.NOT_FOUND, "AdoptVolume", target, "NOT_FOUND: no volume "
                        + r.getVolumeId() + " on backend " + r.getBackend());
            }
            if (agent.foreign.containsKey(r.getVolumeId())) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION, AgentErrorReason.AGENT_ERROR_REASON_VOLUME_FOREIGN,
                        "AdoptVolume", target, "FAILED_PRECONDITION: VolumeForeign: volume " + r.getVolumeId()
                                + " belongs to installation " + agent.foreign.get(r.getVolumeId()), null);
            }
            if (agent.unmarked.contains(r.getVolumeId()) && agent.open.contains(r.getVolumeId())) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION, AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE,
                        "AdoptVolume", target, "FAILED_PRECONDITION: VolumeInUse: volume " + r.getVolumeId() + " is open", null);
            }
            if (volume.size() < r.getMinSizeBytes()) {
                throw new AgentException(AgentException.Kind.OUT_OF_RANGE, "AdoptVolume", target, "OUT_OF_RANGE: volume "
                        + r.getVolumeId() + " has " + volume.size() + " bytes, fewer than min_size_bytes " + r.getMinSizeBytes());
            }
        }, (agent, done) -> {
            agent.unmarked.remove(r.getVolumeId());
            return AdoptVolumeResponse.newBuilder().setVolume(proto(r.getVolumeId(), agent.volumes.get(r.getVolumeId()))).build();
        });
    }

    /** Where the agent puts a volume of a backend: a dataset's mountpoint (as zfs gives it), else its block device. */
    static String device(pillar.api.agent.v1.Backend on, String volumeId) {
        return on.getKind() == BackendKind.BACKEND_KIND_ZFS_DATASET
                ? "/" + on.getPool() + (on.getParent().isEmpty() ? "" : "/" + on.getParent()) + "/" + volumeId
                : "/dev/" + on.getPool() + "/" + volumeId;
    }

    @Override
    public DeleteVolumeResponse deleteVolume(AgentTarget target, DeleteVolumeRequest r) {
        return fenced(target, "DeleteVolume", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.END,
                agent -> backend(target, "DeleteVolume", agent, r.getBackend()), (agent, done) -> {
            if (!done) {
                agent.exports.remove(r.getVolumeId());
                agent.volumes.remove(r.getVolumeId());
                agent.contents.remove(r.getVolumeId());
                agent.copyModes.remove(r.getVolumeId());
                agent.open.remove(r.getVolumeId());
            }
            return DeleteVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public ExpandVolumeResponse expandVolume(AgentTarget target, ExpandVolumeRequest r) {
        return fenced(target, "ExpandVolume", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, (agent, done) -> {
            FakeAgent.Volume volume = existing(target, "ExpandVolume", agent, r.getVolumeId());
            if (r.getRequiredBytes() < volume.size()) {
                throw new AgentException(AgentException.Kind.OUT_OF_RANGE, "ExpandVolume", target, "OUT_OF_RANGE: a shrink");
            }
            long more = r.getRequiredBytes() - volume.size();
            if (more > agent.available(volume.backend())) {
                throw new AgentException(AgentException.Kind.NO_SPACE, "ExpandVolume", target, "RESOURCE_EXHAUSTED: no space");
            }
            agent.volumes.put(r.getVolumeId(), new FakeAgent.Volume(volume.backend(), r.getRequiredBytes(), volume.options(),
                    volume.device()));
            return ExpandVolumeResponse.newBuilder().setSizeBytes(r.getRequiredBytes()).build();
        });
    }

    @Override
    public ExportVolumeResponse exportVolume(AgentTarget target, ExportVolumeRequest r) {
        return fenced(target, "ExportVolume", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, agent -> {
            backend(target, "ExportVolume", agent, r.getBackend());
            check(!r.getExport().getBindAddress().isEmpty() && r.getExport().getPort() > 0, "export: bind_address and port must be set");
        }, (agent, done) -> {
            if (r.getExport().getAuthRequired() && !agent.nvmeAuth()) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION,
                        AgentErrorReason.AGENT_ERROR_REASON_NVME_AUTH_UNSUPPORTED, "ExportVolume", target,
                        "FAILED_PRECONDITION: NvmeAuthUnsupported: this kernel has no nvmet authentication", null);
            }
            boolean nfsExport = r.getExport().getProtocol() == ExportProtocol.EXPORT_PROTOCOL_NFS;
            if (r.getExport().getTlsRequired() && nfsExport && !agent.nfsTls()) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION,
                        AgentErrorReason.AGENT_ERROR_REASON_NFS_TLS_UNSUPPORTED, "ExportVolume", target,
                        "FAILED_PRECONDITION: this host's nfsd cannot require RPC-with-TLS", null);
            }
            if (r.getExport().getTlsRequired() && !nfsExport && !agent.nvmeTls()) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION,
                        AgentErrorReason.AGENT_ERROR_REASON_NVME_TLS_UNSUPPORTED, "ExportVolume", target,
                        "FAILED_PRECONDITION: this kernel's nvmet cannot require TLS", null);
            }
            FakeAgent.Volume volume = existing(target, "ExportVolume", agent, r.getVolumeId());
            boolean dataset = agent.backends.get(volume.backend()).getKind() == BackendKind.BACKEND_KIND_ZFS_DATASET;
            boolean nfs = r.getExport().getProtocol() == ExportProtocol.EXPORT_PROTOCOL_NFS;
            if (dataset != nfs) {
                throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "ExportVolume", target, "INVALID_ARGUMENT: "
                        + (nfs ? "NFS exports a zfs-dataset backend only" : "NVMe-oF/TCP exports a block backend only"));
            }
            FakeAgent.Export existing = agent.exports.get(r.getVolumeId());
            ExportSpec wanted = r.getExport().toBuilder().clearAddressFamily().build();
            if (existing != null && !existing.spec().equals(wanted)) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION, "ExportVolume", target,
                        "FAILED_PRECONDITION: volume " + r.getVolumeId() + " is already exported as " + existing.spec());
            }
            if (existing == null) {
                agent.exports.put(r.getVolumeId(), new FakeAgent.Export(r.getBackend(), wanted, new HashSet<>()));
            }
            ExportVolumeResponse.Builder answer = ExportVolumeResponse.newBuilder().setAddress(wanted.getBindAddress())
                    .setPort(wanted.getPort());
            return (nfs ? answer.setExportPath(volume.device()) : answer.setSubsystemNqn(NQN_PREFIX + r.getVolumeId())).build();
        });
    }

    @Override
    public UnexportVolumeResponse unexportVolume(AgentTarget target, UnexportVolumeRequest r) {
        return fenced(target, "UnexportVolume", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, (agent, done) -> {
            agent.exports.remove(r.getVolumeId());
            agent.hostAuth.remove(r.getVolumeId());
            agent.tlsPsk.remove(r.getVolumeId());
            agent.readOnly.remove(r.getVolumeId());
            return UnexportVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public AllowInitiatorResponse allowInitiator(AgentTarget target, AllowInitiatorRequest r) {
        return fenced(target, "AllowInitiator", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, (agent, done) -> {
            FakeAgent.Export export = agent.exports.get(r.getVolumeId());
            if (export == null) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION, "AllowInitiator", target,
                        "FAILED_PRECONDITION: volume " + r.getVolumeId() + " is not exported; export it first");
            }
            Grantee host = grantee(target, "AllowInitiator", export, r.getHostNqn(), r.getClientAddress());
            if (r.getReadOnly() && r.getClientAddress().isEmpty()) {
                throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "AllowInitiator", target,
                        "INVALID_ARGUMENT: read_only is for NFS clients");
            }
            if (r.getExclusive() && !r.getClientAddress().isEmpty()) {
                throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "AllowInitiator", target,
                        "INVALID_ARGUMENT: exclusive is for NVMe-oF hosts");
            }
            if (r.getExclusive() && !export.spec().getAclEnabled()) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION, "AllowInitiator", target,
                        "FAILED_PRECONDITION: volume " + r.getVolumeId() + " is exported to any host (acl_enabled false)");
            }
            if (r.getExclusive()) { // the host alone: every other one removed (and its connections dropped and drained)
                export.allowedHosts().retainAll(Set.of(host.value()));
                agent.hostAuth.getOrDefault(r.getVolumeId(), new HashMap<>()).keySet().retainAll(Set.of(host.value()));
                agent.tlsPsk.getOrDefault(r.getVolumeId(), new HashMap<>()).keySet().retainAll(Set.of(host.value()));
            }
            if (export.spec().getAuthRequired()) {
                HostAuth auth = r.getAuth();
                if (!r.hasAuth() || auth.getHostKey().isEmpty()) {
                    throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "AllowInitiator", target,
                            "INVALID_ARGUMENT: volume " + r.getVolumeId() + " requires authentication: auth is required");
                }
                agent.hostAuth.computeIfAbsent(r.getVolumeId(), v -> new HashMap<>()).put(host.value(), auth);
            }
            // NVMe/TCP TLS takes a key per host; NFS over TLS none (the server's certificate is tlshd's)
            boolean keyed = export.spec().getTlsRequired() && export.spec().getProtocol() != ExportProtocol.EXPORT_PROTOCOL_NFS;
            if (keyed != !r.getTlsPsk().isEmpty()) {
                throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "AllowInitiator", target, "INVALID_ARGUMENT: volume "
                        + r.getVolumeId() + (keyed ? " requires TLS: tls_psk is required" : " takes no TLS key: tls_psk is refused"));
            }
            if (keyed) {
                try {
                    TlsPsk.of("tls_psk", r.getTlsPsk());
                } catch (InvalidValueException e) {
                    throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "AllowInitiator", target,
                            "INVALID_ARGUMENT: " + e.getMessage());
                }
                agent.tlsPsk.computeIfAbsent(r.getVolumeId(), v -> new HashMap<>()).put(host.value(), r.getTlsPsk());
            }
            if (export.spec().getAclEnabled()) {
                export.allowedHosts().add(host.value());
            }
            if (!r.getClientAddress().isEmpty()) { // an allow of another access rewrites the client's entry
                Set<String> readOnly = agent.readOnly.computeIfAbsent(r.getVolumeId(), v -> new HashSet<>());
                if (r.getReadOnly()) {
                    readOnly.add(host.value());
                } else {
                    readOnly.remove(host.value());
                }
            }
            return AllowInitiatorResponse.getDefaultInstance();
        });
    }

    @Override
    public DenyInitiatorResponse denyInitiator(AgentTarget target, DenyInitiatorRequest r) {
        return fenced(target, "DenyInitiator", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, (agent, done) -> {
            FakeAgent.Export export = agent.exports.get(r.getVolumeId());
            if (export == null) {
                return DenyInitiatorResponse.getDefaultInstance();
            }
            Grantee host = grantee(target, "DenyInitiator", export, r.getHostNqn(), r.getClientAddress());
            export.allowedHosts().remove(host.value());
            agent.hostAuth.getOrDefault(r.getVolumeId(), new HashMap<>()).remove(host.value());
            agent.tlsPsk.getOrDefault(r.getVolumeId(), new HashMap<>()).remove(host.value());
            agent.readOnly.getOrDefault(r.getVolumeId(), new HashSet<>()).remove(host.value());
            return DenyInitiatorResponse.getDefaultInstance();
        });
    }

    /**
     * As the agent: absent desired unexports; a desired export otherwise than the one held replaces it;
     * the allowed hosts become the desired ones (with auth_required or tls_required, only those with keys from
     * AllowInitiator), the keys of hosts no longer wanted are dropped.
     */
    @Override
    public ReconcileResponse reconcile(AgentTarget target, ReconcileRequest r) {
        List<Nqn> hosts = r.getDesired().getAllowedHostsList().stream().map(h -> nqn(target, "Reconcile", h)).toList();
        return fenced(target, "Reconcile", r.getVolumeId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, (agent, done) -> {
            ReconcileResponse.Builder out = ReconcileResponse.newBuilder();
            FakeAgent.Export existing = agent.exports.get(r.getVolumeId());
            if (!r.hasDesired()) {
                if (agent.exports.remove(r.getVolumeId()) != null) {
                    out.addChanges("unexported " + r.getVolumeId());
                }
                agent.hostAuth.remove(r.getVolumeId());
                agent.tlsPsk.remove(r.getVolumeId());
                return out.build();
            }
            backend(target, "Reconcile", agent, r.getDesired().getBackend());
            existing(target, "Reconcile", agent, r.getVolumeId());
            if (agent.stuckDrift.contains(r.getVolumeId())) {
                throw new AgentException(AgentException.Kind.FAILED, "Reconcile", target, "INTERNAL: the kernel refused"
                        + " re-applying the export of " + r.getVolumeId());
            }
            // the agent's Reconcile makes the kernel hold exactly its record: whatever had drifted is re-applied
            agent.drift.remove(r.getVolumeId());
            ExportSpec wanted = r.getDesired().getExport().toBuilder().clearAddressFamily().build();
            if (existing == null || !existing.spec().equals(wanted) || !existing.backend().equals(r.getDesired().getBackend())) {
                existing = new FakeAgent.Export(r.getDesired().getBackend(), wanted, new HashSet<>());
                agent.exports.put(r.getVolumeId(), existing);
                out.addChanges("exported " + r.getVolumeId());
            }
            Map<String, HostAuth> keys = agent.hostAuth.computeIfAbsent(r.getVolumeId(), v -> new HashMap<>());
            Map<String, String> psks = agent.tlsPsk.computeIfAbsent(r.getVolumeId(), v -> new HashMap<>());
            Set<String> admitted = new HashSet<>();
            for (Nqn host : hosts) {
                if (wanted.getAclEnabled() && (!wanted.getAuthRequired() || keys.containsKey(host.value()))
                        && (!wanted.getTlsRequired() || psks.containsKey(host.value()))) {
                    admitted.add(host.value());
                }
            }
            keys.keySet().retainAll(admitted);
            psks.keySet().retainAll(admitted);
            for (String host : Set.copyOf(existing.allowedHosts())) {
                if (!admitted.contains(host)) {
                    existing.allowedHosts().remove(host);
                    out.addChanges("denied " + host);
                }
            }
            for (String host : admitted) {
                if (existing.allowedHosts().add(host)) {
                    out.addChanges("allowed " + host);
                }
            }
            return out.setActual(pillar.api.agent.v1.Export.newBuilder().setVolumeId(r.getVolumeId())
                    .setBackend(existing.backend()).setSubsystemNqn(NQN_PREFIX + r.getVolumeId()).setExport(existing.spec())
                    .addAllAllowedHosts(existing.allowedHosts().stream().sorted().toList())).build();
        });
    }

    @Override
    public ListVolumesResponse listVolumes(AgentTarget target, ListVolumesRequest request) {
        return onBackend(target, "ListVolumes", request.getBackend(), agent -> {
            ListVolumesResponse.Builder out = ListVolumesResponse.newBuilder();
            agent.volumes.forEach((id, v) -> {
                if (v.backend().equals(request.getBackend())) {
                    out.addVolumes(proto(id, v));
                }
            });
            return out.build();
        });
    }

    @Override
    public ListExportsResponse listExports(AgentTarget target, ListExportsRequest request) {
        FakeAgent agent = reach(target, "ListExports", "");
        synchronized (agent) {
            ListExportsResponse.Builder out = ListExportsResponse.newBuilder();
            agent.exports.forEach((id, e) -> out.addExports(pillar.api.agent.v1.Export.newBuilder().setVolumeId(id)
                    .setBackend(e.backend()).setSubsystemNqn(NQN_PREFIX + id).setExport(e.spec())
                    .addAllAllowedHosts(e.allowedHosts()).addAllDrift(agent.drift.getOrDefault(id, List.of()))));
            return out.build();
        }
    }

    /** The volume's health from the fake's state, with the faults the test set on its agent (drift, pool health, usage). */
    @Override
    public GetVolumeHealthResponse getVolumeHealth(AgentTarget target, GetVolumeHealthRequest request) {
        FakeAgent agent = reach(target, "GetVolumeHealth", request.getVolumeId());
        synchronized (agent) {
            return health(target, agent, request);
        }
    }

    /**
     * As the agent: each entry as {@link #getVolumeHealth} answers it, a failed one as its error (the status
     * code and description the single call fails with); UNIMPLEMENTED from an agent {@link FakeAgent#withoutVolumesHealth},
     * INVALID_ARGUMENT above {@link HealthBatch#MAX_ENTRIES}. Recorded once, as {@code "GetVolumesHealth <endpoint> <entries>"}.
     */
    @Override
    public GetVolumesHealthResponse getVolumesHealth(AgentTarget target, GetVolumesHealthRequest request) {
        FakeAgent agent = reach(target, "GetVolumesHealth", String.valueOf(request.getVolumesCount()));
        synchronized (agent) {
            if (!agent.volumesHealth()) {
                throw new AgentException(AgentException.Kind.UNSUPPORTED, "GetVolumesHealth", target,
                        "UNIMPLEMENTED: Method not found: pillar.agent.v1.AgentService/GetVolumesHealth");
            }
            invalidAsAgent(target, "GetVolumesHealth", () -> {
                check(request.getVolumesCount() <= HealthBatch.MAX_ENTRIES, "volumes: at most " + HealthBatch.MAX_ENTRIES + " a call");
                return null;
            });
            GetVolumesHealthResponse.Builder out = GetVolumesHealthResponse.newBuilder();
            for (GetVolumeHealthRequest entry : request.getVolumesList()) {
                VolumeHealthResult.Builder result = VolumeHealthResult.newBuilder().setVolumeId(entry.getVolumeId())
                        .setBackend(entry.getBackend());
                try {
                    result.setHealth(health(target, agent, entry));
                } catch (AgentException e) {
                    String code = e.detail().substring(0, e.detail().indexOf(':'));
                    result.setError(VolumeHealthError.newBuilder().setCode(io.grpc.Status.Code.valueOf(code).value())
                            .setMessage(e.detail().substring(code.length() + 2)).setReason(e.reason()));
                }
                out.addResults(result);
            }
            return out.build();
        }
    }

    private GetVolumeHealthResponse health(AgentTarget target, FakeAgent agent, GetVolumeHealthRequest request) {
        invalidAsAgent(target, "GetVolumeHealth", () -> VolumeId.of(request.getVolumeId()));
        backend(target, "GetVolumeHealth", agent, request.getBackend());
        GetVolumeHealthResponse.Builder out = GetVolumeHealthResponse.newBuilder()
                .setVolumePresent(agent.volumes.containsKey(request.getVolumeId()))
                .setExportRecorded(agent.exports.containsKey(request.getVolumeId()));
        if (agent.exports.containsKey(request.getVolumeId())) {
            out.addAllExportDrift(agent.drift.getOrDefault(request.getVolumeId(), List.of()));
        }
        FakeAgent.PoolState pool = agent.pools.get(request.getBackend());
        if (pool != null) {
            out.setPoolHealth(pool.health());
            pool.thin().ifPresent(out::setThinPool);
        }
        return out.build();
    }

    /**
     * As the agent: fenced by the snapshot's own mark; the source volume must exist on the backend,
     * which must take snapshots (else FAILED_PRECONDITION SnapshotsUnsupported); the same ID again is
     * the snapshot as taken, of another source ALREADY_EXISTS.
     */
    @Override
    public CreateSnapshotResponse createSnapshot(AgentTarget target, CreateSnapshotRequest r) {
        return snapshotFenced(target, "CreateSnapshot", r.getSnapshotId(), r.hasToken(), r.getToken(), Fencing.Intent.CHANGE, agent -> {
            VolumeId.of(r.getSourceVolumeId());
            backend(target, "CreateSnapshot", agent, r.getBackend());
            if (!agent.backends.get(r.getBackend()).getSnapshots()) {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION,
                        AgentErrorReason.AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED, "CreateSnapshot", target,
                        "FAILED_PRECONDITION: SnapshotsUnsupported: backend " + r.getBackend() + " is an LVM linear volume group:"
                                + " it cannot take snapshots", null);
            }
        }, (agent, done) -> {
            FakeAgent.Snapshot existing = agent.snapshots.get(r.getSnapshotId());
            if (existing != null) {
                if (!existing.source().equals(r.getSourceVolumeId()) || !existing.backend().equals(r.getBackend())) {
                    throw new AgentException(AgentException.Kind.ALREADY_EXISTS, "CreateSnapshot", target, "ALREADY_EXISTS: snapshot "
                            + r.getSnapshotId() + " is of volume " + existing.source());
                }
                return CreateSnapshotResponse.newBuilder().setSnapshot(proto(r.getSnapshotId(), existing)).build();
            }
            FakeAgent.Volume source = existing(target, "CreateSnapshot", agent, r.getSourceVolumeId());
            FakeAgent.Snapshot snapshot = new FakeAgent.Snapshot(r.getBackend(), r.getSourceVolumeId(), source.size(),
                    java.time.Instant.now().getEpochSecond());
            agent.snapshots.put(r.getSnapshotId(), snapshot);
            return CreateSnapshotResponse.newBuilder().setSnapshot(proto(r.getSnapshotId(), snapshot)).build();
        });
    }

    /** As the agent: the snapshot goes at once for the CO (its clones keep their blocks); repeating it succeeds. */
    @Override
    public DeleteSnapshotResponse deleteSnapshot(AgentTarget target, DeleteSnapshotRequest r) {
        return snapshotFenced(target, "DeleteSnapshot", r.getSnapshotId(), r.hasToken(), r.getToken(), Fencing.Intent.END,
                agent -> backend(target, "DeleteSnapshot", agent, r.getBackend()), (agent, done) -> {
            agent.snapshots.remove(r.getSnapshotId());
            return DeleteSnapshotResponse.getDefaultInstance();
        });
    }

    @Override
    public ListSnapshotsResponse listSnapshots(AgentTarget target, ListSnapshotsRequest request) {
        return onBackend(target, "ListSnapshots", request.getBackend(), agent -> {
            ListSnapshotsResponse.Builder out = ListSnapshotsResponse.newBuilder();
            agent.snapshots.forEach((id, s) -> {
                if (s.backend().equals(request.getBackend())) {
                    out.addSnapshots(proto(id, s));
                }
            });
            return out.build();
        });
    }

    /** What a CreateVolume with a source makes the volume of, checked as the agent checks it. */
    private static String content(AgentTarget target, FakeAgent agent, CreateVolumeRequest r) {
        pillar.api.agent.v1.VolumeSource source = r.getSource();
        long size;
        String content;
        if (source.hasSnapshotId()) {
            FakeAgent.Snapshot snapshot = agent.snapshots.get(source.getSnapshotId());
            if (snapshot == null || !snapshot.backend().equals(r.getBackend())) {
                throw new AgentException(AgentException.Kind.NOT_FOUND, "CreateVolume", target, "NOT_FOUND: snapshot "
                        + source.getSnapshotId() + " does not exist on backend " + r.getBackend());
            }
            size = snapshot.size();
            content = "snapshot:" + source.getSnapshotId();
        } else {
            FakeAgent.Volume volume = existing(target, "CreateVolume", agent, source.getVolumeId());
            size = volume.size();
            content = "volume:" + source.getVolumeId();
        }
        if (r.getSizeBytes() < size) {
            throw new AgentException(AgentException.Kind.OUT_OF_RANGE, "CreateVolume", target, "OUT_OF_RANGE: size_bytes "
                    + r.getSizeBytes() + " is below the source's " + size);
        }
        // as the agent's backends: a thin snapshot always shares blocks, a linear clone never does
        BackendKind kind = agent.backends.get(r.getBackend()).getKind();
        if (kind == BackendKind.BACKEND_KIND_LVM_THIN && source.getMode() == CopyMode.COPY_MODE_INDEPENDENT) {
            throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "CreateVolume", target, "INVALID_ARGUMENT: backend "
                    + r.getBackend() + " is an LVM thin pool: a volume made from a source is a thin snapshot, which shares its"
                    + " blocks with the source, so an INDEPENDENT copy cannot be made here");
        }
        if (kind == BackendKind.BACKEND_KIND_LVM_LINEAR && source.getMode() == CopyMode.COPY_MODE_LINKED) {
            throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, "CreateVolume", target, "INVALID_ARGUMENT: backend "
                    + r.getBackend() + ": an LVM linear volume cannot share blocks: a clone is a full copy; ask for independent"
                    + " or default");
        }
        return content;
    }

    private static pillar.api.agent.v1.Snapshot proto(String id, FakeAgent.Snapshot s) {
        return pillar.api.agent.v1.Snapshot.newBuilder().setSnapshotId(id).setSourceVolumeId(s.source()).setBackend(s.backend())
                .setSizeBytes(s.size()).setCreationTimeSeconds(s.createdSeconds()).setReadyToUse(true).build();
    }

    @FunctionalInterface
    private interface Action<T> {
        T apply(FakeAgent agent, boolean alreadyDone);
    }

    /** A volume-changing call: validated, fenced (the mark written first), then done. */
    private <T> T fenced(AgentTarget target, String rpc, String volumeId, boolean hasToken,
                         pillar.api.agent.v1.FencingToken token, Fencing.Intent intent, Action<T> action) {
        return fenced(target, rpc, volumeId, hasToken, token, intent, agent -> { }, action);
    }

    /** As above, with checks that refuse a request before the fencing mark is touched (as the agent's are). */
    private <T> T fenced(AgentTarget target, String rpc, String volumeId, boolean hasToken,
                         pillar.api.agent.v1.FencingToken token, Fencing.Intent intent,
                         java.util.function.Consumer<FakeAgent> validate, Action<T> action) {
        return fenced(target, rpc, volumeId, hasToken, token, intent, agent -> agent.marks, validate, action);
    }

    /** A snapshot-changing call: as a volume's, fenced by the snapshot's own mark. */
    private <T> T snapshotFenced(AgentTarget target, String rpc, String snapshotId, boolean hasToken,
                                 pillar.api.agent.v1.FencingToken token, Fencing.Intent intent,
                                 java.util.function.Consumer<FakeAgent> validate, Action<T> action) {
        return fenced(target, rpc, snapshotId, hasToken, token, intent, agent -> agent.snapshotMarks, validate, action);
    }

    private <T> T fenced(AgentTarget target, String rpc, String volumeId, boolean hasToken,
                         pillar.api.agent.v1.FencingToken token, Fencing.Intent intent,
                         Function<FakeAgent, Map<String, FencingMark>> markMap,
                         java.util.function.Consumer<FakeAgent> validate, Action<T> action) {
        FakeAgent agent = reach(target, rpc, volumeId);
        synchronized (agent) {
            agent.problem().ifPresent(p -> {
                throw new AgentException(AgentException.Kind.FAILED_PRECONDITION, rpc, target,
                        "FAILED_PRECONDITION: " + p.getReason() + ": " + p.getMessage());
            });
            return invalidAsAgent(target, rpc, () -> {
                VolumeId.of(volumeId);
                validate.accept(agent);
                Optional<FencingToken> t = hasToken ? Optional.of(FencingToken.fromProto(token)) : Optional.empty();
                Fencing.Admission admission;
                try {
                    admission = Fencing.admit(Optional.ofNullable(markMap.apply(agent).get(volumeId)), t, intent);
                } catch (FencingViolation e) {
                    throw new AgentException(AgentException.Kind.FAILED_PRECONDITION, rpc, target,
                            "FAILED_PRECONDITION: fencing: " + e.getMessage());
                }
                markMap.apply(agent).put(volumeId, admission.next());
                return action.apply(agent, admission.alreadyDone());
            });
        }
    }

    private static <T> T invalidAsAgent(AgentTarget target, String rpc, Supplier<T> call) {
        try {
            return call.get();
        } catch (InvalidValueException e) {
            throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, rpc, target, "INVALID_ARGUMENT: " + e.getMessage());
        }
    }

    /** Whom an allow or deny names: a host NQN (NVMe-oF/TCP) or a client address (NFS). */
    private record Grantee(String value) {
    }

    /**
     * As the agent: exactly one of host_nqn and client_address, the one of the export's protocol
     * (INVALID_ARGUMENT otherwise); an NQN by its grammar, an address as an IP literal.
     */
    private static Grantee grantee(AgentTarget target, String rpc, FakeAgent.Export export, String hostNqn, String clientAddress) {
        boolean nfs = export.spec().getProtocol() == ExportProtocol.EXPORT_PROTOCOL_NFS;
        if (!nfs) {
            if (!clientAddress.isEmpty()) {
                throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, rpc, target,
                        "INVALID_ARGUMENT: client_address is for NFS exports; this one is NVMe-oF/TCP");
            }
            return new Grantee(nqn(target, rpc, hostNqn).value());
        }
        if (!hostNqn.isEmpty() || !pillar.controller.crd.Grammars.isIpLiteral(clientAddress)) {
            throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, rpc, target,
                    "INVALID_ARGUMENT: an NFS export takes a client_address (an IP literal) and no host_nqn");
        }
        return new Grantee(clientAddress);
    }

    private static Nqn nqn(AgentTarget target, String rpc, String value) {
        return invalidAsAgent(target, rpc, () -> Nqn.of(value));
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new InvalidValueException("request", message);
        }
    }

    private static BackendKind backend(AgentTarget target, String rpc, FakeAgent agent, String name) {
        if (!agent.backends.containsKey(name)) {
            throw new AgentException(AgentException.Kind.INVALID_ARGUMENT, rpc, target,
                    "INVALID_ARGUMENT: backend: '" + name + "' is not configured on this agent");
        }
        return agent.backends.get(name).getKind();
    }

    private static FakeAgent.Volume existing(AgentTarget target, String rpc, FakeAgent agent, String id) {
        FakeAgent.Volume volume = agent.volumes.get(id);
        if (volume == null) {
            throw new AgentException(AgentException.Kind.NOT_FOUND, rpc, target, "NOT_FOUND: volume " + id + " does not exist");
        }
        return volume;
    }

    private static pillar.api.agent.v1.Volume proto(String id, FakeAgent.Volume v) {
        pillar.api.agent.v1.Volume.Builder volume = pillar.api.agent.v1.Volume.newBuilder().setVolumeId(id).setBackend(v.backend())
                .setSizeBytes(v.size());
        // a block device's path, or a dataset's mountpoint (the path nfsd exports)
        return (v.device().startsWith("/dev/") ? volume.setDevicePath(v.device()) : volume.setMountPath(v.device())).build();
    }

    /** A read of one backend: the agent reached (the call logged), locked, and the backend checked before the read. */
    private <T> T onBackend(AgentTarget target, String rpc, String backend, Function<FakeAgent, T> read) {
        FakeAgent agent = reach(target, rpc, backend);
        synchronized (agent) {
            backend(target, rpc, agent, backend);
            return read.apply(agent);
        }
    }

    private FakeAgent reach(AgentTarget target, String rpc, String argument) {
        FakeAgent agent;
        synchronized (this) {
            calls.add((rpc + " " + target.endpoint() + " " + argument).trim());
            agent = agents.get(target.endpoint());
        }
        if (agent == null || !agent.isUp()) {
            throw new AgentException(AgentException.Kind.UNREACHABLE, rpc, target, "UNAVAILABLE: connection refused");
        }
        return agent;
    }
}
