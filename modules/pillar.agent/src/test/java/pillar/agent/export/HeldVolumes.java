package pillar.agent.export;

import java.util.List;
import java.util.Optional;

import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.KernelExports;
import pillar.agent.backend.VolumeBackend;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * A backend that holds the given volumes as they are and changes nothing: what start-up's re-apply looks
 * up (each record's volume, and which exports are this installation's) without a pool behind it.
 */
final class HeldVolumes implements VolumeBackend {
    private final String name;
    private final List<BackendVolume> volumes;

    HeldVolumes(String name, List<BackendVolume> volumes) {
        this.name = name;
        this.volumes = List.copyOf(volumes);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Optional<BackendVolume> find(VolumeId id) {
        return volumes.stream().filter(v -> v.id().equals(id)).findFirst();
    }

    @Override
    public List<BackendVolume> list() {
        return volumes;
    }

    @Override
    public Capacity capacity() {
        return new Capacity(ByteSize.ofGiB(1), ByteSize.ofGiB(1));
    }

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, java.util.Map<String, String> options, NonZeroingPool pool) {
        throw new UnsupportedOperationException("held volumes are made elsewhere");
    }

    @Override
    public BackendVolume adopt(VolumeId id, ByteSize minSize, KernelExports exports) {
        throw new UnsupportedOperationException("held volumes are not adopted");
    }

    @Override
    public ByteSize expand(VolumeId id, ByteSize required) {
        throw new UnsupportedOperationException("held volumes are not expanded");
    }

    @Override
    public void delete(VolumeId id) {
        throw new UnsupportedOperationException("held volumes are not deleted");
    }
}
