package pillar.node.service;

import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import pillar.node.mount.MountEntry;
import pillar.node.stage.Phase;
import pillar.node.stage.StageRecord;
import pillar.node.stage.StageRecords;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * pillar-node's own meters. Gauges read at each scrape from the stage records and what the host
 * shows: {@value #STAGE_RECORDS} (record files, unreadable ones included), {@value #CONNECTED_CONTROLLERS}
 * (this host's NVMe controllers reaching a subsystem a record names, unless being deleted) and
 * {@value #MOUNTS} by {@code kind} ({@code staging}, {@code publish}: a recorded staging or target
 * path that is a mount point) and {@value #STAGED_VOLUMES} by {@code protocol} ({@code nvme-tcp},
 * {@code nfs}: readable records of staged volumes; both values always present). Each scrape lists the state directory and reads the records, sysfs'
 * controllers and the mount table once per gauge: no cache, it is a few small files. A gauge that
 * cannot be read has no value in that scrape (logged), so the others are still served.
 *
 * <p>The counter {@value #CORRUPTED_MOUNTS} counts each call that finds the mount at its path
 * corrupted: NodeStageVolume and NodePublishVolume, which unmount it and mount again, and
 * NodeGetVolumeStats, which reports it abnormal (so a mount that stays corrupted counts at each poll).
 */
final class NodeMeters {
    static final String STAGE_RECORDS = "pillar_node_stage_records";
    static final String CONNECTED_CONTROLLERS = "pillar_node_connected_controllers";
    static final String MOUNTS = "pillar_node_mounts";
    static final String STAGED_VOLUMES = "pillar_node_staged_volumes";
    /** Exposed as {@code pillar_node_corrupted_mounts_total}. */
    static final String CORRUPTED_MOUNTS = "pillar_node_corrupted_mounts";
    private static final Logger LOG = Logger.getLogger(NodeMeters.class.getName());

    private final NodePorts ports;
    private final Counter corruptedMounts;

    /** Registers the node's meters in {@code metrics}: once per registry. */
    NodeMeters(NodePorts ports, WorkloadMetrics metrics) {
        this.ports = ports;
        metrics.gauge(STAGE_RECORDS, "durable stage records in the state directory", guarded(STAGE_RECORDS, c -> {
            StageRecords.Scan scan = ports.records().scan();
            c.call(scan.records().size() + scan.unreadable().size());
        }));
        metrics.gauge(CONNECTED_CONTROLLERS, "NVMe/TCP controllers connected to the subsystems of staged volumes",
                guarded(CONNECTED_CONTROLLERS, c -> c.call(connectedControllers())));
        metrics.gauge(MOUNTS, "mounts pillar-node made under the kubelet directory, by kind (staging, publish)",
                guarded(MOUNTS, this::mounts), "kind");
        metrics.gauge(STAGED_VOLUMES, "volumes staged on this node, by protocol (nvme-tcp, nfs)",
                guarded(STAGED_VOLUMES, this::stagedVolumes), "protocol");
        this.corruptedMounts = metrics.counter(CORRUPTED_MOUNTS,
                "calls that found the mount at their path corrupted (EIO, ENOTCONN, ESTALE, EACCES)");
    }

    /** A call found the mount at its path corrupted. */
    void corruptedMount() {
        corruptedMounts.inc();
    }

    private long connectedControllers() {
        var records = ports.records().scan().records();
        return ports.sysfs().controllers().stream()
                .filter(c -> !c.deleting() && records.stream().anyMatch(r -> r.fabrics().isPresent()
                        && c.serves(r.target(), r.target().hostOr(ports.hostNqn()))))
                .count();
    }

    private void stagedVolumes(GaugeWithCallback.Callback callback) {
        var staged = ports.records().scan().records().stream().filter(r -> r.phase() == Phase.STAGED).toList();
        long nfs = staged.stream().filter(r -> r.nfs().isPresent()).count();
        callback.call(staged.size() - nfs, "nvme-tcp");
        callback.call(nfs, "nfs");
    }

    private void mounts(GaugeWithCallback.Callback callback) {
        var records = ports.records().scan().records();
        Set<Path> mountPoints = ports.mounter().table().stream().map(MountEntry::mountPoint).collect(Collectors.toSet());
        long staging = records.stream().map(StageRecord::stagingPath).filter(mountPoints::contains).count();
        long publish = records.stream().flatMap(r -> r.publications().stream())
                .filter(p -> mountPoints.contains(p.target())).count();
        callback.call(staging, "staging");
        callback.call(publish, "publish");
    }

    private static Consumer<GaugeWithCallback.Callback> guarded(String name, Consumer<GaugeWithCallback.Callback> read) {
        return callback -> {
            try {
                read.accept(callback);
            } catch (RuntimeException e) {
                LOG.warning(() -> name + " has no value in this scrape: " + e.getMessage());
            }
        };
    }
}
