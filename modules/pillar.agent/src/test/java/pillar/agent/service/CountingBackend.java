package pillar.agent.service;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.KernelExports;
import pillar.agent.backend.VolumeBackend;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/** A backend that answers capacity and counts the calls that reached it; it holds no volumes. */
final class CountingBackend implements VolumeBackend {
    final AtomicInteger calls = new AtomicInteger();
    private final String name;

    CountingBackend(String name) {
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Capacity capacity() {
        calls.incrementAndGet();
        return new Capacity(ByteSize.ofGiB(1), ByteSize.ofMiB(512));
    }

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool) {
        calls.incrementAndGet();
        throw new UnsupportedOperationException("a counting backend creates nothing");
    }

    @Override
    public Optional<BackendVolume> find(VolumeId id) {
        calls.incrementAndGet();
        return Optional.empty();
    }

    @Override
    public BackendVolume adopt(VolumeId id, ByteSize minSize, KernelExports exports) {
        calls.incrementAndGet();
        throw new BackendException(BackendException.Kind.NOT_FOUND, "a counting backend holds no volume " + id);
    }

    @Override
    public ByteSize expand(VolumeId id, ByteSize required) {
        calls.incrementAndGet();
        throw new UnsupportedOperationException("a counting backend expands nothing");
    }

    @Override
    public void delete(VolumeId id) {
        calls.incrementAndGet();
    }

    @Override
    public List<BackendVolume> list() {
        calls.incrementAndGet();
        return List.of();
    }
}
