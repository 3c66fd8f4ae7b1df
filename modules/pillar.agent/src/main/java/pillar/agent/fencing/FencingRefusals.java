package pillar.agent.fencing;

import java.util.Locale;

import io.prometheus.metrics.core.metrics.Counter;
import pillar.api.fencing.FencingViolation;
import pillar.runtime.metrics.WorkloadMetrics;

/**
 * Counts the calls the fences refuse into {@code pillar_fencing_refusals_total}, labelled {@code reason}:
 * a {@link FencingViolation.Reason} in lower case ({@code missing_token}, {@code stale_generation},
 * {@code foreign_lifecycle}, {@code ended_lifecycle}), every one shown from the start at 0. One per
 * agent, shared by its volume and snapshot fences.
 */
public final class FencingRefusals {
    private final Counter refusals;

    public FencingRefusals(WorkloadMetrics metrics) {
        this.refusals = metrics.counter("pillar_fencing_refusals", "calls refused by fencing, by reason", "reason");
        for (FencingViolation.Reason reason : FencingViolation.Reason.values()) {
            refusals.labelValues(label(reason));
        }
    }

    void count(FencingViolation refused) {
        refusals.labelValues(label(refused.reason())).inc();
    }

    private static String label(FencingViolation.Reason reason) {
        return reason.name().toLowerCase(Locale.ROOT);
    }
}
