package pillar.runtime.exec;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * The time the current call has left: a deadline of the calling thread, so that a call made of many
 * bounded steps still ends within one budget. {@link SystemProcessRunner} caps each command's deadline
 * to it (a command is not started once it is spent) and other bounded waits ask {@link #cap}. Outside
 * {@link #within} there is no budget and {@link #cap} changes nothing; a budget inside another never
 * outlasts the outer one.
 */
public final class CallBudget {
    private static final ThreadLocal<Long> DEADLINE = new ThreadLocal<>();

    private CallBudget() {
    }

    /** Runs {@code call} with at most {@code budget} for everything it waits on. */
    public static <T> T within(Duration budget, Supplier<T> call) {
        Long outer = DEADLINE.get();
        long mine = System.nanoTime() + budget.toNanos();
        DEADLINE.set(outer != null && outer - mine < 0 ? outer : mine);
        try {
            return call.get();
        } finally {
            if (outer == null) {
                DEADLINE.remove();
            } else {
                DEADLINE.set(outer);
            }
        }
    }

    /** {@code wanted}, or what is left of the current call's budget when that is less (zero once spent). */
    public static Duration cap(Duration wanted) {
        Long deadline = DEADLINE.get();
        if (deadline == null) {
            return wanted;
        }
        long left = Math.max(0, deadline - System.nanoTime());
        return wanted.toNanos() <= left ? wanted : Duration.ofNanos(left);
    }
}
