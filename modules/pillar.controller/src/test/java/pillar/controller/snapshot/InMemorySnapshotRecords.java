package pillar.controller.snapshot;

import java.time.Clock;

import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.crd.PillarSnapshotStateSpec;
import pillar.controller.crd.PillarSnapshotStateStatus;
import pillar.controller.volume.state.InMemoryRecords;

/** The PillarSnapshotStates in memory: {@link InMemoryRecords}, the adapter the in-memory controller runs on. */
public final class InMemorySnapshotRecords
        extends InMemoryRecords<PillarSnapshotStateSpec, PillarSnapshotStateStatus, PillarSnapshotState>
        implements SnapshotRecords {
    public InMemorySnapshotRecords() {
        super(Clock.systemUTC(), "PillarSnapshotState");
    }
}
