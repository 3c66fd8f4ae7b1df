package pillar.controller.volume.state;

import java.time.Clock;

import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.PillarVolumeStateStatus;

/** The PillarVolumeStates in memory: {@link InMemoryRecords}, held to {@link VolumeRecordsContract}. */
public final class InMemoryVolumeRecords extends InMemoryRecords<PillarVolumeStateSpec, PillarVolumeStateStatus, PillarVolumeState>
        implements VolumeRecords {
    public InMemoryVolumeRecords(Clock clock) {
        super(clock, "PillarVolumeState");
    }

    public InMemoryVolumeRecords() {
        this(Clock.systemUTC());
    }
}
