package pillar.bench.fake;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.KernelExports;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * A volume backend that does no I/O, for measuring the agent's own cost: volumes are entries in a
 * map, sizes rounded to 4 MiB as LVM's extents are, and each volume's block device is a path declared
 * to the fake configfs tree (which is what lets nvmet enable a namespace on it). It keeps the
 * backend contract the agent relies on: a repeated create of the same size returns the volume, of
 * another size is a conflict, a shrink is out of range, a delete of a missing volume succeeds.
 */
final class MemoryBackend implements VolumeBackend {
    private static final long EXTENT = 4L << 20;

    private final String name;
    private final long total;
    private final Path devRoot;
    private final FakeConfigfsTree tree;
    private final Map<VolumeId, BackendVolume> volumes = new ConcurrentHashMap<>();

    MemoryBackend(String name, long total, Path devRoot, FakeConfigfsTree tree) {
        this.name = name;
        this.total = total;
        this.devRoot = devRoot;
        this.tree = tree;
    }

    /** The device path of a volume, the same before and after a restart. */
    Path device(VolumeId id) {
        return devRoot.resolve(name).resolve(id.value());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool) {
        ByteSize rounded = size.roundUpTo(EXTENT);
        BackendVolume existing = volumes.get(id);
        if (existing != null) {
            if (!existing.size().equals(rounded)) {
                throw new BackendException(BackendException.Kind.CONFLICT, "volume " + id + " exists with size " + existing.size());
            }
            return existing;
        }
        if (rounded.bytes() > available()) {
            throw new BackendException(BackendException.Kind.NO_SPACE, name + " has no room for " + rounded);
        }
        BackendVolume volume = new BackendVolume(id, rounded, device(id));
        tree.addBlockDevice(volume.device());
        volumes.put(id, volume);
        return volume;
    }

    @Override
    public Optional<BackendVolume> find(VolumeId id) {
        return Optional.ofNullable(volumes.get(id));
    }

    /** Only a volume it holds already (a retry): nothing exists here that it did not make. */
    @Override
    public BackendVolume adopt(VolumeId id, ByteSize minSize, KernelExports exports) {
        BackendVolume volume = find(id).orElseThrow(() -> new BackendException(BackendException.Kind.NOT_FOUND, "no volume " + id));
        if (volume.size().compareTo(minSize) < 0) {
            throw new BackendException(BackendException.Kind.OUT_OF_RANGE, "volume " + id + " is " + volume.size() + ", smaller than " + minSize);
        }
        return volume;
    }

    @Override
    public synchronized ByteSize expand(VolumeId id, ByteSize required) {
        BackendVolume volume = find(id).orElseThrow(() -> new BackendException(BackendException.Kind.NOT_FOUND, "no volume " + id));
        ByteSize rounded = required.roundUpTo(EXTENT);
        if (rounded.compareTo(volume.size()) < 0) {
            throw new BackendException(BackendException.Kind.OUT_OF_RANGE, "volume " + id + " never shrinks");
        }
        BackendVolume grown = new BackendVolume(id, rounded, volume.device());
        volumes.put(id, grown);
        return rounded;
    }

    @Override
    public void delete(VolumeId id) {
        volumes.remove(id);
    }

    @Override
    public List<BackendVolume> list() {
        return new ArrayList<>(volumes.values());
    }

    @Override
    public Capacity capacity() {
        return new Capacity(ByteSize.of(total), ByteSize.of(available()));
    }

    private long available() {
        return total - volumes.values().stream().mapToLong(v -> v.size().bytes()).sum();
    }
}
