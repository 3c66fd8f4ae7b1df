package pillar.controller.reconcile.loop;

import java.time.Clock;
import java.util.List;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import pillar.controller.crd.Condition;
import pillar.controller.crd.Conditions;

/**
 * Sets a condition and, when it changes (status or reason), says so in a Kubernetes Event and the
 * log: a Normal event when it turns true, a Warning when it turns false.
 */
public final class ConditionRecorder {
    private static final Logger LOG = Logger.getLogger(ConditionRecorder.class.getName());

    private final EventRecorder events;
    private final Clock clock;

    public ConditionRecorder(EventRecorder events, Clock clock) {
        this.events = events;
        this.clock = clock;
    }

    /** The conditions with {@code type} set; {@code current} is not changed. */
    public List<Condition> set(HasMetadata about, List<Condition> current, String type, boolean status, String reason,
                               String message) {
        return set(about, current, type, status, reason, message, status);
    }

    /**
     * Sets a condition that is true while something is wrong (e.g. {@code OrphanVolumes}): a Warning
     * event when it turns true, a Normal one when it turns false.
     */
    public List<Condition> setProblem(HasMetadata about, List<Condition> current, String type, boolean present, String reason,
                                      String message) {
        return set(about, current, type, present, reason, message, !present);
    }

    /**
     * Sets a condition whose event is Normal when {@code good} (e.g. a False that is a choice the
     * user made, not a fault) and Warning otherwise.
     */
    public List<Condition> set(HasMetadata about, List<Condition> current, String type, boolean status, String reason,
                               String message, boolean good) {
        if (Conditions.transitions(current, type, status, reason)) {
            String line = about.getKind() + " " + about.getMetadata().getName() + ": " + type + "=" + status + " " + reason
                    + ": " + message;
            if (good) {
                LOG.info(line);
                events.normal(about, reason, message);
            } else {
                LOG.warning(line);
                events.warning(about, reason, message);
            }
        }
        return Conditions.with(current, type, status, reason, message, generation(about), clock.instant());
    }

    /** The object's metadata.generation, 0 when the server sets none. */
    public static long generation(HasMetadata about) {
        Long generation = about.getMetadata().getGeneration();
        return generation == null ? 0 : generation;
    }
}
