package pillar.controller.volume.read;

import java.util.concurrent.atomic.AtomicLong;

import pillar.api.csi.v1.ListVolumesResponse;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * How many volumes the last complete ListVolumes found abnormal: the health monitor lists every volume with its
 * condition (each page's conditions read of the agents), from the first page to the one without a next token.
 * The tally of a pass is published when its last page is served; a pass this replica did not see begin is not.
 * Served as {@code pillar_controller_abnormal_volumes} (0 until a pass completes), what the alert of the same
 * name reads. One pass at a time is expected: the health monitor's leader lists.
 */
public final class AbnormalVolumes {
    private final AtomicLong published = new AtomicLong();
    private long running;
    private boolean begun;

    private AbnormalVolumes() {
    }

    /** A tally served by {@code metrics}. */
    public static AbnormalVolumes register(WorkloadMetrics metrics) {
        AbnormalVolumes abnormal = new AbnormalVolumes();
        metrics.gauge("pillar_controller_abnormal_volumes", "volumes whose condition the last complete ListVolumes found abnormal",
                callback -> callback.call(abnormal.published.get()));
        return abnormal;
    }

    /** A tally nobody reads (a controller built without meters). */
    public static AbnormalVolumes unreported() {
        return new AbnormalVolumes();
    }

    /** A page served; {@code first}: it answered a request without a starting token. */
    public synchronized void pageListed(boolean first, ListVolumesResponse page) {
        if (first) {
            running = 0;
            begun = true;
        }
        if (!begun) {
            return;
        }
        running += page.getEntriesList().stream().filter(e -> e.getStatus().getVolumeCondition().getAbnormal()).count();
        if (page.getNextToken().isEmpty()) {
            published.set(running);
            begun = false;
        }
    }

    /** The count published last. */
    public long published() {
        return published.get();
    }
}
