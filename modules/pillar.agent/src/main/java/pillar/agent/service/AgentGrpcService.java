package pillar.agent.service;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
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
import pillar.api.agent.v1.AddressFamily;
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
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ExportVolumeResponse;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.api.agent.v1.GetCapacityResponse;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumeHealthResponse;
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
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * The agent API's gRPC endpoint: turns wire messages into validated values, calls
 * {@link AgentOperations}, and maps errors to codes ({@link GrpcErrors}). Nothing is touched
 * before every identifier in the request has been validated.
 */
public final class AgentGrpcService extends AgentServiceGrpc.AgentServiceImplBase {
    /** The protocols this agent can export with. */
    public static final String NVMEOF_TCP = "nvmeof-tcp";
    /**
     * Every call ends, with its result or an error, within this: each command and each configfs call is
     * capped to what is left of it ({@link CallBudget}), and one that runs out answers
     * DEADLINE_EXCEEDED. The controller's deadline for a changing agent call (120 s) is longer, so it
     * hears the agent's own error rather than its own timeout.
     */
    public static final Duration CALL_BUDGET = Duration.ofSeconds(90);

    private final List<BackendConfig> backends;
    private final AgentOperations operations;
    private final AdmissionGate gate;

    /**
     * @param gate admits the calls that change state (create, delete, expand, export, unexport,
     *             allow, deny, reconcile); reads are served whatever it says
     */
    public AgentGrpcService(List<BackendConfig> backends, AgentOperations operations, AdmissionGate gate) {
        this.backends = List.copyOf(backends);
        this.operations = operations;
        this.gate = gate;
    }

    @Override
    public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> response) {
        unary("GetCapabilities", response, () -> {
            GetCapabilitiesResponse.Builder out = GetCapabilitiesResponse.newBuilder()
                    .setAgentVersion(Driver.version())
                    .addProtocols(NVMEOF_TCP)
                    .setNvmeAuth(operations.authSupported());
            backends.forEach(backend -> out.addBackends(withProblem(backend)));
            gate.problem().ifPresent(out::setProblem);
            return out.build();
        });
    }

    /** A configured backend, with the problem it reports now (e.g. a thin pool that does not zero). */
    private pillar.api.agent.v1.Backend withProblem(BackendConfig config) {
        pillar.api.agent.v1.Backend.Builder backend = config.toProto().toBuilder();
        operations.built(config.name()).ifPresent(b -> backend.setSnapshots(b.snapshots()));
        operations.problem(config.name())
                .ifPresent(p -> backend.setProblem(Problem.newBuilder().setReason(p.reason()).setMessage(p.message())));
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
            Optional<HostAuth> auth = request.hasAuth() ? Optional.of(HostAuth.of(request.getAuth().getHostKey(),
                    request.getAuth().getControllerKey(), request.getAuth().getHash(), request.getAuth().getDhGroup()))
                    : Optional.empty();
            operations.allow(token(request.hasToken(), request.getToken()), VolumeId.of(request.getVolumeId()),
                    Nqn.of(request.getHostNqn()), auth);
            return AllowInitiatorResponse.getDefaultInstance();
        });
    }

    @Override
    public void denyInitiator(DenyInitiatorRequest request, StreamObserver<DenyInitiatorResponse> response) {
        change("DenyInitiator", response, () -> {
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
        unary("GetVolumeHealth", response, () -> {
            VolumeId id = VolumeId.of(request.getVolumeId());
            return VolumeHealth.read(operations, id, operations.backend(request.getBackend()));
        });
    }

    @Override
    public void reconcile(ReconcileRequest request, StreamObserver<ReconcileResponse> response) {
        change("Reconcile", response, () -> {
            VolumeId id = VolumeId.of(request.getVolumeId());
            Optional<AgentOperations.Desired> desired = request.hasDesired()
                    ? Optional.of(new AgentOperations.Desired(request.getDesired().getBackend(),
                            address(request.getDesired().getExport()), request.getDesired().getExport().getAclEnabled(),
                            request.getDesired().getAllowedHostsList().stream().map(Nqn::of).collect(Collectors.toSet()),
                            request.getDesired().getExport().getAuthRequired()))
                    : Optional.empty();
            List<String> changes = operations.reconcile(token(request.hasToken(), request.getToken()), id, desired);
            ReconcileResponse.Builder out = ReconcileResponse.newBuilder().addAllChanges(changes);
            operations.listExports().stream().filter(r -> r.volume().equals(id)).findFirst()
                    .ifPresent(r -> out.setActual(toProto(r)));
            return out.build();
        });
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
        PortAddress address = PortAddress.tcp(spec.getBindAddress(), (int) Math.min(spec.getPort(), Integer.MAX_VALUE));
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
                        .setAuthRequired(record.authRequired()))
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

    private static <T> void unary(String rpc, StreamObserver<T> response, Supplier<T> call) {
        UnaryCall.answer(rpc, response, GrpcErrors.MAPPING, () -> CallBudget.within(CALL_BUDGET, call));
    }
}
