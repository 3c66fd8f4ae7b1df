package pillar.controller.volume.create;

import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.CopyMode;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ExportVolumeResponse;
import pillar.api.agent.v1.Volume;
import pillar.api.agent.v1.VolumeSource;
import pillar.api.csi.v1.CreateVolumeResponse;
import pillar.runtime.server.CsiException;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.api.value.VolumeName;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.ProtocolKind;
import pillar.controller.crd.VolumeContentSource;
import pillar.controller.crd.VolumeExport;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.AgentLocator;
import pillar.controller.volume.ExportSpecs;
import pillar.controller.volume.Steps;
import pillar.controller.volume.publish.HostAuthentication;
import pillar.controller.volume.request.Capabilities;
import pillar.controller.volume.state.CsiVolumes;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;

/**
 * CreateVolume and DeleteVolume, after their requests were checked. Create writes the state
 * first (its UID is the lifecycle), then drives the agent step by step, recording each phase;
 * a retry resumes at the recorded phase, and every agent step is idempotent, so a crash anywhere
 * leaves neither a duplicate zvol or LV nor an orphan export. Every agent CreateVolume carries the
 * store's acceptance of a non-zeroing thin pool as its spec says at that moment. Delete ends the
 * lifecycle by {@link LifecycleEnd}: on the agent (unexport, destroy, tombstone), then the state.
 */
public final class Provisioner {
    private static final Logger LOG = Logger.getLogger(Provisioner.class.getName());
    private static final EnumSet<VolumePhase> TO_CREATE = EnumSet.of(VolumePhase.Pending, VolumePhase.Creating);

    private final VolumeStates states;
    private final Steps steps;
    private final AgentClient agents;
    private final AgentLocator locator;
    private final Planner planner;
    private final HostAuthentication auth;
    private final LifecycleEnd end;

    public Provisioner(VolumeStates states, Steps steps, AgentClient agents, AgentLocator locator, Planner planner,
                HostAuthentication auth, LifecycleEnd end) {
        this.states = states;
        this.steps = steps;
        this.agents = agents;
        this.locator = locator;
        this.planner = planner;
        this.auth = auth;
        this.end = end;
    }

    /**
     * The volume of that name, created or found, with its agent steps completed; made from
     * {@code content} when given (on the source's store: a class of another store is INVALID_ARGUMENT).
     */
    public CreateVolumeResponse create(VolumeName name, VolumeId id, Capabilities.Requested capabilities, ByteSize size,
                                pillar.api.csi.v1.CapacityRange range, CreateParameters parameters, Map<String, String> raw,
                                Optional<VolumeContent> content) {
        content.ifPresent(c -> {
            if (!c.store().equals(parameters.store())) {
                throw CsiException.invalid("volume_content_source: the source is on PillarStore " + c.store()
                        + ", the StorageClass creates on " + parameters.store() + "; a restore or clone is made on its source's store");
            }
        });
        Optional<VolumeContentSource> source = content.map(VolumeContent::source);
        Optional<PillarVolumeState> existing = states.get(id);
        // what the volume's protocol serves: a new volume's from its class, an existing one's as frozen
        Capabilities.Requested fitted = Capabilities.fit(capabilities, existing
                .map(s -> s.getSpec().getExport() == null ? ProtocolKind.NVMEOF_TCP : s.getSpec().getExport().protocolKind())
                .orElseGet(() -> planner.protocolKind(parameters.protocol())));
        PillarVolumeState state = existing.orElseGet(() -> {
            PillarVolumeState planned = planner.plan(name, id, fitted, size, parameters, raw);
            content.ifPresent(c -> {
                if (!c.backend().equals(planned.getSpec().getBackend())) {
                    throw CsiException.precondition("volume_content_source: the source is on backend " + c.backend()
                            + ", PillarStore " + c.store() + " now on " + planned.getSpec().getBackend());
                }
                planned.getSpec().setContentSource(c.source());
            });
            return states.create(planned);
        });
        Idempotency.requireSame(state, name, fitted, range, raw, source);
        state = complete(state);
        return CreateVolumeResponse.newBuilder().setVolume(CsiVolumes.of(state)).build();
    }

    /** Runs the agent steps the state has not completed: create (or adopt, for an {@link Adoption}), then export. */
    PillarVolumeState complete(PillarVolumeState state) {
        VolumePhase phase = Records.phase(state);
        if (phase == VolumePhase.Deleting) {
            throw CsiException.aborted("volume " + state.getMetadata().getName() + " is being deleted; retry once it is gone");
        }
        if (phase == VolumePhase.Exported) {
            return state;
        }
        VolumeId id = VolumeId.of(state.getMetadata().getName());
        PillarVolumeStateSpec spec = state.getSpec();
        VolumeExport export = spec.getExport();
        String problem = export == null ? "it has none" : ExportSpecs.problem(export);
        if (problem != null) {
            throw CsiException.precondition(ExportSpecs.missing(id, problem));
        }
        AgentTarget target = locator.target(spec.getAgent());
        auth.requireSupported(spec.getAgent(), export);
        if (TO_CREATE.contains(phase)) {
            state = steps.advance(state, TO_CREATE, VolumePhase.Creating, s -> { });
            Volume created = Adoption.of(spec) ? adopt(state, target, id) : create(state, target, id);
            state = steps.advance(state, EnumSet.of(VolumePhase.Creating), VolumePhase.Exporting, s -> {
                s.setDevicePath(created.getDevicePath().isEmpty() ? null : created.getDevicePath());
                s.setCapacityBytes(created.getSizeBytes());
            });
        } else {
            state = steps.advance(state, EnumSet.of(VolumePhase.Exporting), VolumePhase.Exporting, s -> { });
        }
        ExportVolumeResponse exported;
        try {
            exported = agents.exportVolume(target, ExportVolumeRequest.newBuilder()
                    .setToken(Records.token(state).toProto()).setVolumeId(id.value()).setBackend(spec.getBackend())
                    .setExport(ExportSpecs.toProto(export)).build());
        } catch (AgentException e) {
            throw HostAuthentication.kernelRefusal(e, spec.getAgent());
        }
        if (export.nfs() && exported.getExportPath().isEmpty()) {
            throw CsiException.precondition("agent " + spec.getAgent() + " exported NFS volume " + id + " without an export path: is it an older agent?");
        }
        return steps.record(state, EnumSet.of(VolumePhase.Exporting), VolumePhase.Exported, s -> {
            if (export.nfs()) {
                s.setExportPath(exported.getExportPath());
            } else {
                s.setSubsystemNqn(exported.getSubsystemNqn());
            }
        });
    }

    /** The agent's CreateVolume; a refusal that made nothing ends the lifecycle so that a retry starts afresh. */
    private Volume create(PillarVolumeState state, AgentTarget target, VolumeId id) {
        PillarVolumeStateSpec spec = state.getSpec();
        try {
            return agents.createVolume(target, CreateVolumeRequest.newBuilder().setToken(Records.token(state).toProto())
                    .setVolumeId(id.value()).setBackend(spec.getBackend()).setSizeBytes(spec.getCapacityBytes())
                    .putAllOptions(spec.getBackendOptions())
                    .setAcceptNonZeroingThinPool(planner.acceptsNonZeroingThinPool(spec.getStore()))
                    .mergeFrom(sourceOf(spec)).build()).getVolume();
        } catch (AgentException e) {
            if (nothingWasMade(e)) {
                rollBack(state, target, e);
            }
            throw e;
        }
    }

    /**
     * The agent's AdoptVolume, asking for no least size; a refusal keeps the state (phase Creating), so
     * that the retry once the operator fixed the cause resumes this lifecycle ({@link Adopter}).
     */
    private Volume adopt(PillarVolumeState state, AgentTarget target, VolumeId id) {
        PillarVolumeStateSpec spec = state.getSpec();
        try {
            return agents.adoptVolume(target, AdoptVolumeRequest.newBuilder().setToken(Records.token(state).toProto())
                    .setVolumeId(id.value()).setBackend(spec.getBackend()).setMinSizeBytes(0).build()).getVolume();
        } catch (AgentException e) {
            throw Adoption.refusal(e, id, spec);
        }
    }

    /**
     * Deletes the volume; a missing one is success, a published one FAILED_PRECONDITION. An adoption the
     * agent never confirmed is only forgotten: its zvol, dataset or LV is left as the operator made it.
     */
    public void delete(VolumeId id) {
        states.get(id).ifPresent(state -> {
            if (!Records.publications(state).isEmpty()) {
                throw CsiException.precondition("volume " + id + " is still published to " + Records.publications(state)
                        + "; unpublish it first");
            }
            if (Adoption.unconfirmed(state)) {
                end.forget(state);
                return;
            }
            end.end(state, locator.target(state.getSpec().getAgent()), EnumSet.allOf(VolumePhase.class));
        });
    }

    /** The agent request's source, when the spec records one (an empty request otherwise, to merge). */
    private static CreateVolumeRequest sourceOf(PillarVolumeStateSpec spec) {
        VolumeContentSource recorded = spec.getContentSource();
        if (recorded == null) {
            return CreateVolumeRequest.getDefaultInstance();
        }
        VolumeSource.Builder source = VolumeSource.newBuilder().setMode(recorded.getMode() == null ? CopyMode.COPY_MODE_UNSPECIFIED
                : recorded.getMode() == VolumeContentSource.CopyMode.Linked ? CopyMode.COPY_MODE_LINKED : CopyMode.COPY_MODE_INDEPENDENT);
        if (recorded.getSnapshotId() != null) {
            source.setSnapshotId(recorded.getSnapshotId());
        } else {
            source.setVolumeId(recorded.getVolumeId());
        }
        return CreateVolumeRequest.newBuilder().setSource(source).build();
    }

    /**
     * The agent refused before making anything: a retry with the same frozen settings cannot succeed
     * (NOT_FOUND: the source snapshot or volume went).
     */
    private static boolean nothingWasMade(AgentException e) {
        return switch (e.kind()) {
            case INVALID_ARGUMENT, NO_SPACE, OUT_OF_RANGE, NOT_FOUND -> true;
            default -> false;
        };
    }

    /** Ends the lifecycle that could not be created, so that the next CreateVolume starts afresh. */
    private void rollBack(PillarVolumeState state, AgentTarget target, AgentException cause) {
        try {
            end.end(state, target, EnumSet.allOf(VolumePhase.class));
            LOG.info(() -> "volume " + state.getMetadata().getName() + ": the agent refused to create it (" + cause.kind()
                    + "); its state was removed so that a retry starts afresh");
        } catch (RuntimeException e) {
            LOG.warning(() -> "volume " + state.getMetadata().getName() + ": could not roll back after " + cause.kind()
                    + " (the next CreateVolume resumes it): " + e.getMessage());
        }
    }
}
