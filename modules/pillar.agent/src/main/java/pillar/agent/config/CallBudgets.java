package pillar.agent.config;

import java.time.Duration;

import io.helidon.config.Config;

/**
 * {@code agent.call-budget-seconds}: the time each agent call has in all, every command and wait within it
 * capped to what is left ({@link pillar.runtime.exec.CallBudget}). Default {@value #DEFAULT_SECONDS}; from
 * {@value #MIN_SECONDS} to {@value #MAX_SECONDS}: below the controller's deadline for a changing agent call
 * (120 s), so that it hears the agent's own answer, and long enough for a few commands. Long work (a
 * linear clone's copy, a linear delete's zeroing) runs in the background and is not bounded by it.
 */
public final class CallBudgets {
    public static final int DEFAULT_SECONDS = 90;
    public static final int MIN_SECONDS = 5;
    public static final int MAX_SECONDS = 110;
    static final String KEY = "agent.call-budget-seconds";

    private CallBudgets() {
    }

    /** The configured budget; IllegalArgumentException naming the key when it is not a whole number in range. */
    public static Duration from(Config root) {
        Config node = root.get(KEY);
        if (!node.exists()) {
            return Duration.ofSeconds(DEFAULT_SECONDS);
        }
        String text = node.asString().orElse("");
        int seconds;
        try {
            seconds = Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(KEY + " must be a whole number of seconds, not '" + text + "'", e);
        }
        if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
            throw new IllegalArgumentException(KEY + " must be from " + MIN_SECONDS + " to " + MAX_SECONDS + " seconds (below the"
                    + " controller's 120 s deadline for an agent call), not " + seconds);
        }
        return Duration.ofSeconds(seconds);
    }
}
