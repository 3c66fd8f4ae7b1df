package pillar.controller;

import pillar.runtime.metrics.WorkloadMetrics;
import pillar.controller.crd.VolumePhase;
import pillar.controller.csi.VolumeCatalog;
import pillar.controller.volume.Leading;

/**
 * The controller's gauges read at each scrape, on every replica: {@code pillar_controller_leader}
 * (1 while this replica leads, else 0) and {@code pillar_controller_volume_states{phase}} (the
 * PillarVolumeStates the watch shows, by phase; every phase is reported, 0 included, so that a
 * phase emptying shows as 0 rather than vanishing from a dashboard).
 */
final class ControllerGauges {
    private ControllerGauges() {
    }

    static void register(WorkloadMetrics metrics, Leading leading, VolumeCatalog catalog) {
        metrics.gauge("pillar_controller_leader", "1 while this replica leads (reconciles and changes volumes), else 0",
                callback -> callback.call(leading.now() ? 1 : 0));
        metrics.gauge("pillar_controller_volume_states", "PillarVolumeStates by phase",
                callback -> {
                    var counts = catalog.phases();
                    for (VolumePhase phase : VolumePhase.values()) {
                        callback.call(counts.getOrDefault(phase, 0L), phase.name());
                    }
                }, "phase");
    }
}
