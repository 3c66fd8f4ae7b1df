package pillar.controller.crd;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Reading and setting conditions the way Kubernetes expects them. */
public final class Conditions {
    private Conditions() {
    }

    /** The condition of that type, if there is one. */
    public static Optional<Condition> find(List<Condition> conditions, String type) {
        return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
    }

    /** True when the condition of that type is present and {@code True}. */
    public static boolean isTrue(List<Condition> conditions, String type) {
        return find(conditions, type).map(c -> Condition.TRUE.equals(c.getStatus())).orElse(false);
    }

    /**
     * The conditions with {@code type} set to the given status, reason and message. Its
     * {@code lastTransitionTime} stays as it was unless the status changes, as the API conventions
     * ask; the other conditions are kept. The list given is not changed.
     */
    public static List<Condition> with(List<Condition> conditions, String type, boolean status, String reason,
                                       String message, long generation, Instant now) {
        String value = status ? Condition.TRUE : Condition.FALSE;
        Optional<Condition> previous = find(conditions, type);
        String since = previous.filter(c -> value.equals(c.getStatus())).map(Condition::getLastTransitionTime)
                .orElse(now.truncatedTo(ChronoUnit.SECONDS).toString());
        List<Condition> out = new ArrayList<>();
        conditions.stream().filter(c -> !type.equals(c.getType())).forEach(out::add);
        out.add(new Condition(type, value, reason, message, since, generation));
        out.sort((a, b) -> Objects.compare(a.getType(), b.getType(), String::compareTo));
        return out;
    }

    /** True when setting that status and reason changes what the condition says (worth an event). */
    public static boolean transitions(List<Condition> conditions, String type, boolean status, String reason) {
        return find(conditions, type)
                .map(c -> !(status ? Condition.TRUE : Condition.FALSE).equals(c.getStatus()) || !reason.equals(c.getReason()))
                .orElse(true);
    }
}
