package pillar.controller.volume.state;

import java.util.Optional;

import pillar.api.value.VolumeId;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.PillarVolumeStateStatus;

/**
 * The PillarVolumeStates in their {@link VolumeRecords}, as {@link DurableStates} reads and writes
 * them; the object's name is the volume ID. A state holds {@link PillarVolumeState#FINALIZER} until
 * {@link #delete} removes it.
 */
public final class VolumeStates extends DurableStates<PillarVolumeStateSpec, PillarVolumeStateStatus, PillarVolumeState> {
    /** Told of every write, as the API server answered it (ListVolumes awaits them: {@code pillar.controller.csi.VolumeCatalog}). */
    public interface Writes extends DurableStates.Writes<PillarVolumeState> {
        Writes NONE = new Writes() {
            @Override
            public void wrote(PillarVolumeState state) {
            }

            @Override
            public void deleted(String name) {
            }
        };
    }

    public VolumeStates(VolumeRecords records) {
        this(records, Writes.NONE);
    }

    public VolumeStates(VolumeRecords records, Writes writes) {
        super(records, writes, PillarVolumeState.FINALIZER, "volume", PillarVolumeStateStatus::new);
    }

    public Optional<PillarVolumeState> get(VolumeId id) {
        return get(id.value());
    }
}
