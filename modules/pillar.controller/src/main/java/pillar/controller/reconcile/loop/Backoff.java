package pillar.controller.reconcile.loop;

import java.time.Duration;

/** Exponential backoff: {@code initial}, twice that, four times... never more than {@code max}. */
public record Backoff(Duration initial, Duration max) {
    public Backoff {
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("the initial backoff must be positive, is " + initial);
        }
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("the maximum backoff " + max + " is below the initial " + initial);
        }
    }

    /** The delay after the given number of consecutive failures (1 for the first). */
    public Duration delay(int failures) {
        Duration delay = initial;
        for (int i = 1; i < failures && delay.compareTo(max) < 0; i++) {
            delay = delay.multipliedBy(2);
        }
        return delay.compareTo(max) > 0 ? max : delay;
    }
}
