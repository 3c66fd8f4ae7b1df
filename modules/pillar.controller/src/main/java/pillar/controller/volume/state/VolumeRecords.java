package pillar.controller.volume.state;

import pillar.controller.crd.PillarVolumeState;

/** The port to the PillarVolumeStates, one per volume ID: {@link DurableRecords}' contract. */
public interface VolumeRecords extends DurableRecords<PillarVolumeState> {
}
