package pillar.controller.snapshot;

import java.util.EnumSet;
import java.util.Optional;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.v1.CreateSnapshotRequest;
import pillar.api.agent.v1.DeleteSnapshotRequest;
import pillar.api.agent.v1.Snapshot;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.crd.PillarSnapshotStateSpec;
import pillar.controller.crd.PillarSnapshotStateStatus;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.SnapshotPhase;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;
import pillar.controller.volume.Volumes;
import pillar.runtime.server.CsiException;

/**
 * CreateSnapshot and DeleteSnapshot, after their requests were checked. Create writes the record
 * first (its UID is the snapshot's lifecycle, so the agent's mark for the snapshot is made by this
 * record alone), then asks the agent, then records Ready with what the agent reported; a retry finds
 * the record and asks again, which the agent answers with the snapshot it took. Delete records
 * Deleting, asks the agent (deferred there while linked clones depend on the snapshot: the CO sees
 * it gone at once), then removes the record. Every agent call carries the snapshot's token, and every
 * write checks that this replica still leads.
 */
public final class Snapshotter {
    private static final Logger LOG = Logger.getLogger(Snapshotter.class.getName());
    /** A source volume whose zvol or LV exists: created, and not being deleted. */
    private static final EnumSet<VolumePhase> SNAPSHOTTABLE = EnumSet.of(VolumePhase.Exporting, VolumePhase.Exported);

    private final SnapshotStates states;
    private final VolumeStates volumes;
    private final Volumes graph;

    Snapshotter(SnapshotStates states, Volumes graph) {
        this.states = states;
        this.volumes = graph.states();
        this.graph = graph;
    }

    /**
     * The snapshot of that name, taken or found. The source must exist (NOT_FOUND) and be created
     * (ABORTED while it is being created or deleted); the same name of another source is ALREADY_EXISTS.
     */
    public PillarSnapshotState create(String name, SnapshotId id, VolumeId sourceId) {
        Optional<PillarSnapshotState> existing = states.get(id);
        existing.ifPresent(state -> requireSame(state, name, sourceId));
        if (existing.isPresent() && SnapshotStates.phase(existing.get()) == SnapshotPhase.Ready) {
            return existing.get();
        }
        PillarVolumeState source = volumes.get(sourceId)
                .orElseThrow(() -> CsiException.notFound("source volume " + sourceId + " does not exist"));
        if (!SNAPSHOTTABLE.contains(Records.phase(source))) {
            throw CsiException.aborted("source volume " + sourceId + " is " + Records.phase(source) + "; retry once it is created");
        }
        PillarSnapshotState state = existing.orElseGet(() -> {
            graph.leading().require();
            return states.create(plan(name, id, source));
        });
        requireSame(state, name, sourceId);
        return complete(state);
    }

    /** Asks the agent for a snapshot whose record exists, and records what it took. */
    private PillarSnapshotState complete(PillarSnapshotState state) {
        SnapshotPhase phase = SnapshotStates.phase(state);
        if (phase == SnapshotPhase.Deleting) {
            throw CsiException.aborted("snapshot " + state.getMetadata().getName() + " is being deleted; retry once it is gone");
        }
        if (phase == SnapshotPhase.Ready) {
            return state;
        }
        PillarSnapshotStateSpec spec = state.getSpec();
        AgentTarget target = graph.agentTarget(spec.getAgent());
        Snapshot taken;
        try {
            taken = agents().createSnapshot(target, CreateSnapshotRequest.newBuilder()
                    .setToken(SnapshotStates.token(state).toProto()).setSnapshotId(state.getMetadata().getName())
                    .setBackend(spec.getBackend()).setSourceVolumeId(spec.getSourceVolumeId()).build()).getSnapshot();
        } catch (AgentException e) {
            if (nothingWasTaken(e)) {
                rollBack(state, e);
            }
            throw e;
        }
        return states.updateStatus(state, now -> {
            graph.leading().require();
            if (SnapshotStates.phase(now) != SnapshotPhase.Creating) {
                throw CsiException.aborted("snapshot " + now.getMetadata().getName() + " is " + SnapshotStates.phase(now)
                        + " now: another operation changed it; retry");
            }
            PillarSnapshotStateStatus status = states.statusOf(now);
            status.setPhase(SnapshotPhase.Ready);
            status.setSizeBytes(taken.getSizeBytes());
            status.setCreationTimeSeconds(taken.getCreationTimeSeconds());
            status.setReadyToUse(taken.getReadyToUse());
            return Optional.of(status);
        });
    }

    /** Destroys the snapshot and removes its record; a missing one is success. */
    public void delete(SnapshotId id) {
        states.get(id).ifPresent(found -> {
            PillarSnapshotState state = states.updateStatus(found, now -> {
                graph.leading().require();
                if (SnapshotStates.phase(now) == SnapshotPhase.Deleting) {
                    return Optional.empty();
                }
                PillarSnapshotStateStatus status = states.statusOf(now);
                status.setPhase(SnapshotPhase.Deleting);
                status.setReadyToUse(false);
                return Optional.of(status);
            });
            end(state);
        });
    }

    /** The agent destroys the snapshot, then the record goes (its finalizer first). */
    private void end(PillarSnapshotState state) {
        PillarSnapshotStateSpec spec = state.getSpec();
        agents().deleteSnapshot(graph.agentTarget(spec.getAgent()), DeleteSnapshotRequest.newBuilder()
                .setToken(SnapshotStates.token(state).toProto()).setSnapshotId(state.getMetadata().getName())
                .setBackend(spec.getBackend()).build());
        states.delete(state, now -> {
            graph.leading().require();
            return true;
        });
    }

    private static PillarSnapshotState plan(String name, SnapshotId id, PillarVolumeState source) {
        PillarSnapshotStateSpec spec = new PillarSnapshotStateSpec();
        spec.setSnapshotName(name);
        spec.setSourceVolumeId(source.getMetadata().getName());
        spec.setStore(source.getSpec().getStore());
        spec.setAgent(source.getSpec().getAgent());
        spec.setBackend(source.getSpec().getBackend());
        spec.setSourceCapacityBytes(Records.capacity(source));
        PillarSnapshotState state = new PillarSnapshotState();
        state.setMetadata(new ObjectMetaBuilder().withName(id.value()).withFinalizers(PillarSnapshotState.FINALIZER).build());
        state.setSpec(spec);
        return state;
    }

    /** Name idempotency: the record of this ID must be of this name and this source (ALREADY_EXISTS otherwise). */
    private static void requireSame(PillarSnapshotState state, String name, VolumeId source) {
        PillarSnapshotStateSpec spec = state.getSpec();
        if (!name.equals(spec.getSnapshotName())) {
            throw CsiException.alreadyExists("snapshot ID " + state.getMetadata().getName() + " belongs to the snapshot named "
                    + spec.getSnapshotName() + ", not " + name);
        }
        if (!source.value().equals(spec.getSourceVolumeId())) {
            throw CsiException.alreadyExists("snapshot " + name + " exists of volume " + spec.getSourceVolumeId() + ", not " + source);
        }
    }

    /** The agent refused before taking anything: a retry with the same record cannot succeed. */
    private static boolean nothingWasTaken(AgentException e) {
        return switch (e.kind()) {
            case INVALID_ARGUMENT, NO_SPACE, NOT_FOUND, UNSUPPORTED -> true;
            case FAILED_PRECONDITION -> e.reason() == AgentErrorReason.AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED;
            default -> false;
        };
    }

    /** Ends the snapshot that could not be taken, so that the next CreateSnapshot starts afresh. */
    private void rollBack(PillarSnapshotState state, AgentException cause) {
        try {
            PillarSnapshotState deleting = states.updateStatus(state, now -> {
                PillarSnapshotStateStatus status = states.statusOf(now);
                status.setPhase(SnapshotPhase.Deleting);
                return Optional.of(status);
            });
            end(deleting);
            LOG.info(() -> "snapshot " + state.getMetadata().getName() + ": the agent refused to take it (" + cause.kind()
                    + "); its record was removed so that a retry starts afresh");
        } catch (RuntimeException e) {
            LOG.warning(() -> "snapshot " + state.getMetadata().getName() + ": could not roll back after " + cause.kind()
                    + " (DeleteSnapshot or the next CreateSnapshot resumes it): " + e.getMessage());
        }
    }

    private AgentClient agents() {
        return graph.agents();
    }
}
