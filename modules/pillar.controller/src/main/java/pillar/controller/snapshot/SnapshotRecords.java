package pillar.controller.snapshot;

import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.volume.state.DurableRecords;

/** The port to the PillarSnapshotStates, one per snapshot ID: {@link DurableRecords}' contract. */
public interface SnapshotRecords extends DurableRecords<PillarSnapshotState> {
}
