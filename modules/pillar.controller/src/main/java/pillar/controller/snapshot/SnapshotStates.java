package pillar.controller.snapshot;

import java.util.Optional;

import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.SnapshotId;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.crd.PillarSnapshotStateSpec;
import pillar.controller.crd.PillarSnapshotStateStatus;
import pillar.controller.crd.SnapshotPhase;
import pillar.controller.volume.state.DurableStates;

/**
 * The PillarSnapshotStates in their {@link SnapshotRecords}, as {@link DurableStates} reads and
 * writes them; the object's name is the snapshot ID. A record holds {@link PillarSnapshotState#FINALIZER}
 * until the snapshot is destroyed on its agent.
 */
public final class SnapshotStates extends DurableStates<PillarSnapshotStateSpec, PillarSnapshotStateStatus, PillarSnapshotState> {
    public SnapshotStates(SnapshotRecords records) {
        super(records, Writes.none(), PillarSnapshotState.FINALIZER, "snapshot", PillarSnapshotStateStatus::new);
    }

    public Optional<PillarSnapshotState> get(SnapshotId id) {
        return get(id.value());
    }

    /** The phase; a record without status is being created (it is written before the agent is asked). */
    public static SnapshotPhase phase(PillarSnapshotState state) {
        return state.getStatus() == null || state.getStatus().getPhase() == null ? SnapshotPhase.Creating
                : state.getStatus().getPhase();
    }

    /** The token of every agent call for the snapshot: its lifecycle, generation 1 (a snapshot never changes). */
    static FencingToken token(PillarSnapshotState state) {
        return FencingToken.of(LifecycleUid.of(state.getMetadata().getUid()), 1);
    }
}
