package pillar.controller.reconcile.loop;

import java.time.Duration;

/**
 * What a reconciler wants next: nothing until the object (or something it depends on) changes;
 * another look after a while (polling an agent); or a retry with backoff after a failure.
 */
public record Result(Next next, Duration after) {
    /** The three intents. */
    public enum Next {
        DONE, REQUEUE, RETRY
    }

    public Result {
        if (after.isNegative()) {
            throw new IllegalArgumentException("a requeue delay must not be negative, is " + after);
        }
    }

    /** Nothing more to do until a change arrives. */
    public static Result done() {
        return new Result(Next.DONE, Duration.ZERO);
    }

    /** Look again after {@code after}, and forget earlier failures. */
    public static Result requeueAfter(Duration after) {
        return new Result(Next.REQUEUE, after);
    }

    /** It failed: try again after a delay that grows with each consecutive failure. */
    public static Result retry() {
        return new Result(Next.RETRY, Duration.ZERO);
    }
}
