package pillar.agent.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.logging.Logger;

import pillar.agent.backend.PoolHealth;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.export.VolumeExport;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumeHealthResponse;
import pillar.api.agent.v1.ThinPoolUsage;
import pillar.api.value.VolumeId;

/**
 * One volume's health as the agent reads it for GetVolumeHealth: whether its zvol or LV exists, its
 * durable export record and how the kernel's nvmet configfs (or nfsd's export table) differs from it, and its pool's health.
 * Reads only: no fencing token, no volume lock, nothing activated or repaired. Each part is read on
 * its own, so one that fails (a command timed out, the pool is gone) is reported in {@code unreadable}
 * and the others are still answered.
 */
final class VolumeHealth {
    private static final Logger LOG = Logger.getLogger(VolumeHealth.class.getName());

    private VolumeHealth() {
    }

    /** GetVolumeHealth's answer: the ID and backend validated (INVALID_ARGUMENT) before anything is read. */
    static GetVolumeHealthResponse of(AgentOperations operations, GetVolumeHealthRequest request) {
        VolumeId id = VolumeId.of(request.getVolumeId());
        return read(operations, id, operations.backend(request.getBackend()));
    }

    static GetVolumeHealthResponse read(AgentOperations operations, VolumeId id, VolumeBackend backend) {
        GetVolumeHealthResponse.Builder out = GetVolumeHealthResponse.newBuilder();
        List<String> unreadable = new ArrayList<>();
        part("whether volume " + id + " exists on backend " + backend.name(), unreadable, () -> backend.exists(id))
                .ifPresent(out::setVolumePresent);
        Optional<VolumeExport> record = operations.exportRecord(id);
        out.setExportRecorded(record.isPresent());
        record.flatMap(r -> part(operations.protocolOf(r).where() + "'s export of " + id, unreadable, () -> operations.drift(r)))
                .ifPresent(out::addAllExportDrift);
        part("the health of backend " + backend.name() + "'s pool", unreadable, backend::health).ifPresent(health -> {
            out.setPoolHealth(health.state());
            health.thin().ifPresent(t -> out.setThinPool(proto(t)));
        });
        return out.addAllUnreadable(unreadable).build();
    }

    private static ThinPoolUsage proto(PoolHealth.ThinUsage usage) {
        return ThinPoolUsage.newBuilder().setName(usage.name()).setDataPercent(usage.dataPercent())
                .setMetadataPercent(usage.metadataPercent()).build();
    }

    private static <T> Optional<T> part(String what, List<String> unreadable, Supplier<T> read) {
        try {
            return Optional.of(read.get());
        } catch (RuntimeException e) {
            LOG.fine(() -> "cannot read " + what + ": " + e);
            unreadable.add("cannot read " + what + ": " + e.getMessage());
            return Optional.empty();
        }
    }
}
