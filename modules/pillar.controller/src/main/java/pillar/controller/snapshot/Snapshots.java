package pillar.controller.snapshot;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import pillar.api.value.SnapshotId;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.crd.SnapshotPhase;
import pillar.controller.volume.Volumes;
import pillar.runtime.server.VolumeLocks;

/**
 * The snapshot state machine, assembled once per process beside the volumes' ({@link Volumes}, whose
 * agents, leading and states it shares): the records ({@link SnapshotStates}), the operations
 * ({@link Snapshotter}) and the restore and clone sources ({@link ContentSources}). Snapshots have
 * locks of their own, held per snapshot ID by each operation.
 */
public final class Snapshots {
    private final SnapshotStates states;
    private final Snapshotter snapshotter;
    private final ContentSources sources;
    private final VolumeLocks locks = new VolumeLocks();

    public Snapshots(SnapshotRecords records, Volumes volumes) {
        this.states = new SnapshotStates(records);
        this.snapshotter = new Snapshotter(states, volumes);
        this.sources = new ContentSources(states, volumes.states());
    }

    public Snapshotter snapshotter() {
        return snapshotter;
    }

    public ContentSources sources() {
        return sources;
    }

    /** The record of a snapshot, read now. */
    public Optional<PillarSnapshotState> get(SnapshotId id) {
        return states.get(id);
    }

    /** The snapshots whose create completed (Ready), in snapshot ID order, read now. */
    public List<PillarSnapshotState> ready() {
        return states.list().stream().filter(s -> SnapshotStates.phase(s) == SnapshotPhase.Ready)
                .filter(s -> s.getMetadata().getDeletionTimestamp() == null || states.deletionHeld(s))
                .sorted(Comparator.comparing(s -> s.getMetadata().getName())).toList();
    }

    /**
     * Runs {@code action} holding the snapshot (a second operation on it meanwhile is ABORTED). The
     * locks are keyed by the snapshot ID, which has a volume ID's grammar, in a table of their own.
     */
    public <T> T holding(SnapshotId id, String operation, java.util.function.Supplier<T> action) {
        return locks.run(pillar.api.value.VolumeId.of(id.value()), operation, action);
    }
}
