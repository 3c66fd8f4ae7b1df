package pillar.agent.service;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import io.grpc.stub.StreamObserver;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeSource;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeBackend.NonZeroingPool;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.HostAuth;
import pillar.agent.configfs.PortAddress;
import pillar.agent.export.ExportRecord;
import pillar.api.agent.AgentApiLevel;
import pillar.api.agent.v1.AddressFamily;
import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.AdoptVolumeResponse;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.AllowInitiatorResponse;
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
import pillar.api.agent.v1.Export;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.NfsRootSquash;
import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.BackendKind;
import pillar.agent.export.NfsExportRecord;
import pillar.agent.export.VolumeExport;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsPresence;
import pillar.agent.nfs.NfsSquash;
import pillar.agent.nfs.NfsTransport;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ExportVolumeResponse;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.GetCapacityResponse;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumeHealthResponse;
import pillar.api.agent.v1.GetVolumesHealthRequest;
import pillar.api.agent.v1.GetVolumesHealthResponse;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.agent.v1.ListExportsResponse;
import pillar.api.agent.v1.ListSnapshotsRequest;
import pillar.api.agent.v1.ListSnapshotsResponse;
import pillar.api.agent.v1.ListVolumesRequest;
import pillar.api.agent.v1.ListVolumesResponse;
import pillar.api.agent.v1.Problem;
import pillar.api.agent.v1.ReconcileRequest;
import pillar.api.agent.v1.ReconcileResponse;
import pillar.api.agent.v1.Snapshot;
import pillar.api.agent.v1.UnexportVolumeRequest;
import pillar.api.agent.v1.UnexportVolumeResponse;
import pillar.api.agent.v1.Volume;
import pillar.runtime.exec.CallBudget;
import pillar.runtime.server.UnaryCall;
import pillar.api.fencing.FencingToken;
import pillar.runtime.server.Driver;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * The agent API's gRPC endpoint: turns wire messages into validated values, calls
 * {@link AgentOperations}, and maps errors to codes ({@link GrpcErrors}). Nothing is touched
 * before every identifier in the request has been validated.
 */
public final class AgentGrpcService extends AgentServiceGrpc.AgentServiceImplBase {
    /** The protocols this agent can export with, as the deprecated capability field names them. */
    public static final String NVMEOF_TCP = "nvmeof-tcp";
    public static final String NFS = "nfs";
    /** The port nfsd serves NFSv4 on. */
    static final int NFS_PORT = 2049;
    /**
     * Every call ends, with its result or an error, within this: each command and each configfs call is
     * capped to what is left of it ({@link CallBudget}), and one that runs out answers
     * DEADLINE_EXCEEDED. The controller's deadline for a changing agent call (120 s) is longer, so it
     * hears the agent's own error rather than its own timeout. The default of {@code agent.call-budget-seconds}
     * ({@link pillar.agent.config.CallBudgets}).
     */
    public static final Duration CALL_BUDGET = Duration.ofSeconds(90);

    private final List<BackendConfig> backends;
    private final AgentOperations operations;
    private final AdmissionGate gate;
    private final Supplier<Optional<String>> nfsProblem;
    private final Supplier<List<String>> damagedRecords;
    private final Duration callBudget;

    /**
     * @param gate admits the calls that change state (create, adopt, delete, expand, export, unexport,
     *             allow, deny, reconcile); reads are served whatever it says
     */
    public AgentGrpcService(List<BackendConfig> backends, AgentOperations operations, AdmissionGate gate) {
        this(backends, operations, gate, () -> Optional.of("this agent has no NFS server"));
    }

    /** @param nfsProblem why the host's NFS server does not serve now; empty when it does ("nfs" is then a protocol) */
    public AgentGrpcService(List<BackendConfig> backends, AgentOperations operations, AdmissionGate gate,
                            Supplier<Optional<String>> nfsProblem) {
        this(backends, operations, gate, nfsProblem, List::of, CALL_BUDGET);
    }

    /** @param damagedRecords the durable records found damaged now, one line each (GetCapabilities lists them) */
    public AgentGrpcService(List<BackendConfig> backends, AgentOperations operations, AdmissionGate gate,
                            Supplier<Optional<String>> nfsProblem, Supplier<List<String>> damagedRecords) {
        this(backends, operations, gate, nfsProblem, damagedRecords, CALL_BUDGET);
    }

    /** @param callBudget the time each call has in all ({@link #CALL_BUDGET} unless configured) */
    public AgentGrpcService(List<BackendConfig> backends, AgentOperations operations, AdmissionGate gate,
                            Supplier<Optional<String>> nfsProblem, Duration callBudget) {
        this(backends, operations, gate, nfsProblem, List::of, callBudget);
    }

    /**
     * @param damagedRecords the durable records found damaged now, one line each (GetCapabilities lists them)
     * @param callBudget     the time each call has in all ({@link #CALL_BUDGET} unless configured)
     */
    public AgentGrpcService(List<BackendConfig> backends, AgentOperations operations, AdmissionGate gate,
                            Supplier<Optional<String>> nfsProblem, Supplier<List<String>> damagedRecords, Duration callBudget) {
        this.damagedRecords = damagedRecords;
        this.callBudget = callBudget;
        this.nfsProblem = nfsProblem;
        this.backends = List.copyOf(backends);
        this.operations = operations;
        this.gate = gate;
    }

    @Override
    public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> response) {
        unary("GetCapabilities", response, () -> {
            GetCapabilitiesResponse.Builder out = GetCapabilitiesResponse.newBuilder()
                    .setAgentVersion(Driver.version())
                    .setApiLevel(AgentApiLevel.CURRENT).setOldestControllerLevel(AgentApiLevel.OLDEST_CONTROLLER)
                    .addExportProtocols(ExportProtocol.EXPORT_PROTOCOL_NVMEOF_TCP).addProtocols(NVMEOF_TCP)
                    .setNvmeAuth(operations.authSupported()).setNvmeTls(operations.tlsSupported()).setNfsRootSquash(true);
            Optional<String> nfs = nfsProblem.get();
            if (nfs.isEmpty()) {
                out.addExportProtocols(ExportProtocol.EXPORT_PROTOCOL_NFS).addProtocols(NFS).setNfsTls(operations.nfsTlsProblem().isEmpty());
            }
            backends.forEach(backend -> out.addBackends(withProblem(backend, nfs)));
            gate.problem().ifPresent(out::setProblem);
            out.addAllDamagedRecords(damagedRecords.get());
            return out.build();
        });
    }

    /** A configured backend, with the problem it reports now (e.g. a thin pool that does not zero). */
    private pillar.api.agent.v1.Backend withProblem(BackendConfig config, Optional<String> nfs) {
        pillar.api.agent.v1.Backend.Builder backend = config.toProto().toBuilder();
        operations.built(config.name()).ifPresent(b -> backend.setSnapshots(b.snapshots()));
        operations.problem(config.name())
                .ifPresent(p -> backend.setProblem(Problem.newBuilder().setReason(p.reason()).setMessage(p.message())));
        if (config.kind() == BackendKind.BACKEND_KIND_ZFS_DATASET && nfs.isPresent() && !backend.hasProblem()) {
            backend.setProblem(Problem.newBuilder().setReason(NfsPresence.REASON).setMessage("backend " + config.name()
                    + " exports over NFS, and " + nfs.get()));
        }
        return backend.build();
    }

    @Override
    public void getCapacity(GetCapacityRequest request, StreamObserver<GetCapacityResponse> response) {
        unary("GetCapacity", response, () -> {
            VolumeBackend.Capacity capacity = operations.backend(request.getBackend()).capacity();
            return GetCapacityResponse.newBuilder().setTotalBytes(capacity.total().bytes())
                    .setAvailableBytes(capacity.available().bytes()).build();
        });
    }

    @Override
    public void createVolume(CreateVolumeRequest request, StreamObserver<CreateVolumeResponse> response) {
        change("CreateVolume", response, () -> {
            VolumeId id = VolumeId.of(request.getVolumeId());
            Optional<VolumeSource> source = request.hasSource() ? Optional.of(source(request.getSource())) : Optional.empty();
            Optional<FencingToken> token = token(request.hasToken(), request.getToken());
            ByteSize size = size("size_bytes", request.getSizeBytes());
            NonZeroingPool pool = request.getAcceptNonZeroingThinPool() ? NonZeroingPool.ACCEPT : NonZeroingPool.REFUSE;
            BackendVolume volume = source.isPresent()
                    ? operations.create(token, id, request.getBackend(), size, request.getOptionsMap(), pool, source.get())
                    : operations.create(token, id, request.getBackend(), size, request.getOptionsMap(), pool);
            return CreateVolumeResponse.newBuilder().setVolume(toProto(volume, request.getBackend())).build();
        });
    }

    /** Through the gate and the fence as CreateVolume; answers with the volume as CreateVolume does. */
    @Override
    public void adoptVolume(AdoptVolumeRequest request, StreamObserver<AdoptVolumeResponse> response) {
        change("AdoptVolume", response, () -> {
            VolumeId id = VolumeId.of(request.getVolumeId());
            Optional<FencingToken> token = token(request.hasToken(), request.getToken());
            ByteSize minSize = minSize("min_size_bytes", request.getMinSizeBytes());
            BackendVolume volume = operations.adopt(token, id, request.getBackend(), minSize);
            return AdoptVolumeResponse.newBuilder().setVolume(toProto(volume, request.getBackend())).build();
        });
    }

    @Override
    public void createSnapshot(CreateSnapshotRequest request, StreamObserver<CreateSnapshotResponse> response) {
        change("CreateSnapshot", response, () -> {
            SnapshotId id = SnapshotId.of(request.getSnapshotId());
            VolumeId source = VolumeId.of(request.getSourceVolumeId());
            BackendSnapshot snapshot = operations.createSnapshot(token(request.hasToken(), request.getToken()), id,
                    request.getBackend(), source);
            return CreateSnapshotResponse.newBuilder().setSnapshot(toProto(snapshot, request.getBackend())).build();
        });
    }

    @Override
    public void deleteSnapshot(DeleteSnapshotRequest request, StreamObserver<DeleteSnapshotResponse> response) {
        change("DeleteSnapshot", response, () -> {
            SnapshotId id = SnapshotId.of(request.getSnapshotId());
            operations.deleteSnapshot(token(request.hasToken(), request.getToken()), id, request.getBackend());
            return DeleteSnapshotResponse.getDefaultInstance();
        });
    }

    @Override
    public void listSnapshots(ListSnapshotsRequest request, StreamObserver<ListSnapshotsResponse> response) {
        unary("ListSnapshots", response, () -> ListSnapshotsResponse.newBuilder().addAllSnapshots(operations
                .listSnapshots(request.getBackend()).stream().map(s -> toProto(s, request.getBackend())).toList()).build());
    }

    /** The wire source as a validated value: an ID of either kind is checked before use; no mode is the default. */
    private static VolumeSource source(pillar.api.agent.v1.VolumeSource source) {
        VolumeSource.Mode mode = switch (source.getMode()) {
            case COPY_MODE_UNSPECIFIED -> VolumeSource.Mode.DEFAULT;
            case COPY_MODE_LINKED -> VolumeSource.Mode.LINKED;
            case COPY_MODE_INDEPENDENT -> VolumeSource.Mode.INDEPENDENT;
            default -> throw new InvalidValueException("source.mode", "is not a known copy mode");
        };
        return switch (source.getKindCase()) {
            case SNAPSHOT_ID -> new VolumeSource.FromSnapshot(SnapshotId.of(source.getSnapshotId()), mode);
            case VOLUME_ID -> new VolumeSource.FromVolume(VolumeId.of(source.getVolumeId()), mode);
            case KIND_NOT_SET -> throw new InvalidValueException("source", "must name a snapshot_id or a volume_id");
        };
    }

    /** A snapshot on a backend is restorable as soon as it exists (hidden ones are never listed nor found). */
    private static Snapshot toProto(BackendSnapshot snapshot, String backend) {
        return Snapshot.newBuilder().setSnapshotId(snapshot.id().value()).setSourceVolumeId(snapshot.source().value())
                .setBackend(backend).setSizeBytes(snapshot.size().bytes())
                .setCreationTimeSeconds(snapshot.created().getEpochSecond()).setReadyToUse(true).build();
    }

    @Override
    public void deleteVolume(DeleteVolumeRequest request, StreamObserver<DeleteVolumeResponse> response) {
        change("DeleteVolume", response, () -> {
            operations.delete(token(request.hasToken(), request.getToken()), VolumeId.of(request.getVolumeId()),
                    request.getBackend());
            return DeleteVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void expandVolume(ExpandVolumeRequest request, StreamObserver<ExpandVolumeResponse> response) {
        change("ExpandVolume", response, () -> {
            ByteSize size = operations.expand(token(request.hasToken(), request.getToken()),
                    VolumeId.of(request.getVolumeId()), request.getBackend(),
                    size("required_bytes", request.getRequiredBytes()));
            return ExpandVolumeResponse.newBuilder().setSizeBytes(size.bytes()).build();
        });
    }

    @Override
    public void exportVolume(ExportVolumeRequest request, StreamObserver<ExportVolumeResponse> response) {
        change("ExportVolume", response, () -> {
            VolumeId id = VolumeId.of(request.getVolumeId());
            boolean nfs = request.getExport().getProtocol() == ExportProtocol.EXPORT_PROTOCOL_NFS;
            requireProtocolFits(request.getBackend(), nfs);
            if (nfs) {
                NfsClient server = NfsClient.parse("export.bind_address", request.getExport().getBindAddress());
                AddressFamily family = request.getExport().getAddressFamily();
                if ((family == AddressFamily.ADDRESS_FAMILY_IPV4 && server.ipv6()) || (family == AddressFamily.ADDRESS_FAMILY_IPV6 && !server.ipv6())) {
                    throw new InvalidValueException("export.address_family", "does not match bind_address " + server);
                }
                if (request.getExport().getPort() != 0 && request.getExport().getPort() != NFS_PORT) {
                    throw new InvalidValueException("export.port", "must be " + NFS_PORT + " (or unset) for NFS");
                }
                if (request.getExport().getAuthRequired()) {
                    throw new InvalidValueException("export.auth_required", "NFS exports have no in-band authentication");
                }
                NfsExportRecord record = operations.exportNfs(token(request.hasToken(), request.getToken()), id, request.getBackend(), server,
                        squash("export.nfs_root_squash", request.getExport()), transport(request.getExport()));
                return ExportVolumeResponse.newBuilder().setAddress(server.text()).setPort(NFS_PORT)
                        .setExportPath(record.path().toString()).build();
            }
            noSquash("export.nfs_root_squash", request.getExport());
            PortAddress address = address(request.getExport());
            ExportRecord record = operations.export(token(request.hasToken(), request.getToken()), id,
                    request.getBackend(), address, request.getExport().getAclEnabled(),
                    request.getExport().getAuthRequired());
            return ExportVolumeResponse.newBuilder().setSubsystemNqn(record.subsystem().value())
                    .setAddress(address.traddr()).setPort(address.trsvcid()).build();
        });
    }

    @Override
    public void unexportVolume(UnexportVolumeRequest request, StreamObserver<UnexportVolumeResponse> response) {
        change("UnexportVolume", response, () -> {
            operations.unexport(token(request.hasToken(), request.getToken()), VolumeId.of(request.getVolumeId()));
            return UnexportVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void allowInitiator(AllowInitiatorRequest request, StreamObserver<AllowInitiatorResponse> response) {
        change("AllowInitiator", response, () -> {
            if (exactlyOne(request.getHostNqn(), request.getClientAddress())) {
                if (request.getExclusive()) {
                    throw new InvalidValueException("exclusive", "is for NVMe-oF hosts; an NFS export lists its clients");
                }
                if (request.hasAuth()) {
                    throw new InvalidValueException("auth", "NFS clients have no DH-HMAC-CHAP keys");
                }
                if (!request.getTlsPsk().isEmpty()) {
                    throw new InvalidValueException("tls_psk", "NFS clients have no NVMe/TCP TLS keys");
                }
                operations.allowNfs(token(request.hasToken(), request.getToken()), VolumeId.of(request.getVolumeId()),
                        NfsClient.parse("client_address", request.getClientAddress()), NfsAccess.of(request.getReadOnly()));
                return AllowInitiatorResponse.getDefaultInstance();
            }
            if (request.getReadOnly()) {
                throw new InvalidValueException("read_only", "is for NFS clients: nvmet has no read-only access per host");
            }
            Optional<HostAuth> auth = request.hasAuth() ? Optional.of(HostAuth.of(request.getAuth().getHostKey(),
                    request.getAuth().getControllerKey(), request.getAuth().getHash(), request.getAuth().getDhGroup()))
                    : Optional.empty();
            Optional<TlsPsk> psk = request.getTlsPsk().isEmpty() ? Optional.empty()
                    : Optional.of(TlsPsk.of("tls_psk", request.getTlsPsk()));
            operations.allow(token(request.hasToken(), request.getToken()), VolumeId.of(request.getVolumeId()),
                    Nqn.of(request.getHostNqn()), auth, request.getExclusive(), psk);
            return AllowInitiatorResponse.getDefaultInstance();
        });
    }

    @Override
    public void denyInitiator(DenyInitiatorRequest request, StreamObserver<DenyInitiatorResponse> response) {
        change("DenyInitiator", response, () -> {
            if (exactlyOne(request.getHostNqn(), request.getClientAddress())) {
                operations.denyNfs(token(request.hasToken(), request.getToken()), VolumeId.of(request.getVolumeId()),
                        NfsClient.parse("client_address", request.getClientAddress()));
                return DenyInitiatorResponse.getDefaultInstance();
            }
            operations.deny(token(request.hasToken(), request.getToken()), VolumeId.of(request.getVolumeId()),
                    Nqn.of(request.getHostNqn()));
            return DenyInitiatorResponse.getDefaultInstance();
        });
    }

    @Override
    public void listVolumes(ListVolumesRequest request, StreamObserver<ListVolumesResponse> response) {
        unary("ListVolumes", response, () -> ListVolumesResponse.newBuilder().addAllVolumes(operations.backend(request.getBackend())
                .list().stream().map(v -> toProto(v, request.getBackend())).toList()).build());
    }

    @Override
    public void listExports(ListExportsRequest request, StreamObserver<ListExportsResponse> response) {
        unary("ListExports", response, () -> ListExportsResponse.newBuilder()
                .addAllExports(operations.listExports().stream()
                        .map(r -> toProto(r).toBuilder().addAllDrift(operations.drift(r)).build()).toList()).build());
    }

    /** A read: served whatever the gate says, so a restarting agent still tells what it has. */
    @Override
    public void getVolumeHealth(GetVolumeHealthRequest request, StreamObserver<GetVolumeHealthResponse> response) {
        unary("GetVolumeHealth", response, () -> VolumeHealth.of(operations, request));
    }

    /** A read, served whatever the gate says: each entry as GetVolumeHealth would answer it ({@link VolumesHealth}). */
    @Override
    public void getVolumesHealth(GetVolumesHealthRequest request, StreamObserver<GetVolumesHealthResponse> response) {
        unary("GetVolumesHealth", response, () -> VolumesHealth.read(operations, request));
    }

    @Override
    public void reconcile(ReconcileRequest request, StreamObserver<ReconcileResponse> response) {
        change("Reconcile", response, () -> {
            VolumeId id = VolumeId.of(request.getVolumeId());
            if (request.hasDesired() && request.getDesired().getExport().getProtocol() == ExportProtocol.EXPORT_PROTOCOL_NFS) {
                requireProtocolFits(request.getDesired().getBackend(), true);
                NfsClient server = NfsClient.parse("desired.export.bind_address", request.getDesired().getExport().getBindAddress());
                Set<NfsClient> clients = request.getDesired().getAllowedHostsList().stream()
                        .map(c -> NfsClient.parse("desired.allowed_hosts", c)).collect(Collectors.toSet());
                List<String> changes = operations.reconcileNfs(token(request.hasToken(), request.getToken()), id,
                        request.getDesired().getBackend(), server, clients, squash("desired.export.nfs_root_squash", request.getDesired().getExport()),
                        transport(request.getDesired().getExport()));
                ReconcileResponse.Builder out = ReconcileResponse.newBuilder().addAllChanges(changes);
                operations.exportRecord(id).ifPresent(r -> out.setActual(toProto(r)));
                return out.build();
            }
            if (request.hasDesired()) {
                requireProtocolFits(request.getDesired().getBackend(), false);
                noSquash("desired.export.nfs_root_squash", request.getDesired().getExport());
            }
            Optional<AgentOperations.Desired> desired = request.hasDesired()
                    ? Optional.of(new AgentOperations.Desired(request.getDesired().getBackend(),
                            address(request.getDesired().getExport()), request.getDesired().getExport().getAclEnabled(),
                            request.getDesired().getAllowedHostsList().stream().map(Nqn::of).collect(Collectors.toSet()),
                            request.getDesired().getExport().getAuthRequired()))
                    : Optional.empty();
            List<String> changes = operations.reconcile(token(request.hasToken(), request.getToken()), id, desired);
            ReconcileResponse.Builder out = ReconcileResponse.newBuilder().addAllChanges(changes);
            operations.exportRecord(id).ifPresent(r -> out.setActual(toProto(r)));
            return out.build();
        });
    }

    /**
     * Whether the call names an NFS client (true) or a host NQN (false): exactly one of them must be set,
     * else INVALID_ARGUMENT. Which one fits the volume's export is the operations' check.
     */
    private static boolean exactlyOne(String hostNqn, String clientAddress) {
        if (hostNqn.isEmpty() == clientAddress.isEmpty()) {
            throw new InvalidValueException("host_nqn", "exactly one of host_nqn (NVMe-oF) and client_address (NFS) must be set");
        }
        return !clientAddress.isEmpty();
    }

    /** The NFS export's squash: unset or OFF is no_root_squash, ON root_squash; a value this agent does not know is INVALID_ARGUMENT. */
    private static NfsSquash squash(String field, ExportSpec spec) {
        return switch (spec.getNfsRootSquash()) {
            case NFS_ROOT_SQUASH_UNSPECIFIED, NFS_ROOT_SQUASH_OFF -> NfsSquash.NO_ROOT_SQUASH;
            case NFS_ROOT_SQUASH_ON -> NfsSquash.ROOT_SQUASH;
            case UNRECOGNIZED -> throw new InvalidValueException(field, "must be NFS_ROOT_SQUASH_OFF or NFS_ROOT_SQUASH_ON, is "
                    + spec.getNfsRootSquashValue());
        };
    }

    /** An NFS export's transport: RPC-with-TLS only when tls_required, else any. */
    private static NfsTransport transport(ExportSpec spec) {
        return spec.getTlsRequired() ? NfsTransport.TLS : NfsTransport.ANY;
    }

    /** Root squashing is NFS's: any value on an NVMe-oF/TCP export is INVALID_ARGUMENT. */
    private static void noSquash(String field, ExportSpec spec) {
        if (spec.getNfsRootSquashValue() != 0) {
            throw new InvalidValueException(field, "is for NFS exports only; NVMe-oF/TCP has no root squashing");
        }
    }

    /** NFS only on a zfs-dataset backend, NVMe-oF only on a block one: INVALID_ARGUMENT before anything is read. */
    private void requireProtocolFits(String backend, boolean nfs) {
        Optional<BackendConfig> config = backends.stream().filter(b -> b.name().equals(backend)).findFirst();
        if (config.isEmpty()) {
            operations.backend(backend); // names the configured ones
            return;
        }
        boolean dataset = config.get().kind() == BackendKind.BACKEND_KIND_ZFS_DATASET;
        if (nfs && !dataset) {
            throw new InvalidValueException("export.protocol", "NFS exports only a zfs-dataset backend's volumes; backend " + backend
                    + " holds block devices (export it over NVMe-oF/TCP)");
        }
        if (!nfs && dataset) {
            throw new InvalidValueException("export.protocol", "backend " + backend + " holds filesystem datasets: export them with"
                    + " protocol NFS, not NVMe-oF/TCP");
        }
    }

    private static Export toProto(VolumeExport record) {
        return switch (record) {
            case ExportRecord nvme -> toProto(nvme);
            case NfsExportRecord nfs -> toProto(nfs);
        };
    }

    private static Export toProto(NfsExportRecord record) {
        return Export.newBuilder()
                .setVolumeId(record.volume().value())
                .setBackend(record.backend())
                .setExport(ExportSpec.newBuilder().setBindAddress(record.server().text()).setPort(NFS_PORT)
                        .setAddressFamily(record.server().ipv6() ? AddressFamily.ADDRESS_FAMILY_IPV6 : AddressFamily.ADDRESS_FAMILY_IPV4)
                        .setAclEnabled(true).setProtocol(ExportProtocol.EXPORT_PROTOCOL_NFS)
                        .setNfsRootSquash(record.squash() == NfsSquash.ROOT_SQUASH ? NfsRootSquash.NFS_ROOT_SQUASH_ON
                                : NfsRootSquash.NFS_ROOT_SQUASH_UNSPECIFIED)
                        .setTlsRequired(record.transport() == NfsTransport.TLS))
                .addAllAllowedHosts(record.clients().stream().map(NfsClient::text).sorted().toList())
                .setExportPath(record.path().toString())
                .build();
    }

    /** 0 (any size) or more; a uint64 above Long.MAX_VALUE arrives negative. */
    private static ByteSize minSize(String field, long bytes) {
        if (bytes < 0) {
            throw new InvalidValueException(field, "is out of range");
        }
        return ByteSize.of(bytes);
    }

    /** A token with no lifecycle is no token: refused by fencing with FAILED_PRECONDITION, not INVALID_ARGUMENT. */
    private static Optional<FencingToken> token(boolean present, pillar.api.agent.v1.FencingToken token) {
        if (!present || token.getLifecycleUid().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(FencingToken.fromProto(token));
    }

    private static ByteSize size(String field, long bytes) {
        if (bytes <= 0) {
            // uint64 above Long.MAX_VALUE arrives negative
            throw new InvalidValueException(field, bytes == 0 ? "must be greater than 0" : "is out of range");
        }
        return ByteSize.of(bytes);
    }

    private static PortAddress address(ExportSpec spec) {
        if (spec.getBindAddress().isEmpty()) {
            throw new InvalidValueException("export.bind_address", "must be set (an IP address of this storage node)");
        }
        PortAddress address = PortAddress.tcp(spec.getBindAddress(), (int) Math.min(spec.getPort(), Integer.MAX_VALUE),
                spec.getTlsRequired());
        AddressFamily family = spec.getAddressFamily();
        boolean mismatch = (family == AddressFamily.ADDRESS_FAMILY_IPV4 && address.family() != PortAddress.AddressFamily.IPV4)
                || (family == AddressFamily.ADDRESS_FAMILY_IPV6 && address.family() != PortAddress.AddressFamily.IPV6);
        if (mismatch) {
            throw new InvalidValueException("export.address_family", "does not match bind_address " + spec.getBindAddress());
        }
        return address;
    }

    private static Volume toProto(BackendVolume volume, String backend) {
        Volume.Builder built = Volume.newBuilder().setVolumeId(volume.id().value()).setBackend(backend).setSizeBytes(volume.size().bytes());
        return volume.isFilesystem() ? built.setMountPath(volume.mountPath().toString()).build()
                : built.setDevicePath(volume.device().toString()).build();
    }

    private static Export toProto(ExportRecord record) {
        return Export.newBuilder()
                .setVolumeId(record.volume().value())
                .setBackend(record.backend())
                .setSubsystemNqn(record.subsystem().value())
                .setExport(ExportSpec.newBuilder().setBindAddress(record.address().traddr())
                        .setPort(record.address().trsvcid())
                        .setAddressFamily(record.address().family() == PortAddress.AddressFamily.IPV4
                                ? AddressFamily.ADDRESS_FAMILY_IPV4 : AddressFamily.ADDRESS_FAMILY_IPV6)
                        .setAclEnabled(record.aclEnabled())
                        .setAuthRequired(record.authRequired()).setTlsRequired(record.address().tls()))
                .addAllAllowedHosts(record.allowedHosts().stream().map(Nqn::value).sorted().toList())
                .build();
    }

    /** A call that changes state: refused (nothing read or changed) unless the gate admits it. */
    private <T> void change(String rpc, StreamObserver<T> response, Supplier<T> call) {
        unary(rpc, response, () -> {
            gate.admitChange();
            return call.get();
        });
    }

    private <T> void unary(String rpc, StreamObserver<T> response, Supplier<T> call) {
        UnaryCall.answer(rpc, response, GrpcErrors.MAPPING, () -> CallBudget.within(callBudget, call));
    }
}
