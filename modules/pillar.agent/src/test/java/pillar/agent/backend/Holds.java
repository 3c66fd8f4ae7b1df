package pillar.agent.backend;

import java.util.HashMap;
import java.util.Map;

/**
 * The fakes' volumes held open (an nvmet namespace, udev's probe): how many removals of each are
 * still refused. Not thread-safe: the fakes call it under their own lock.
 */
public final class Holds {
    private final Map<String, Integer> refusals = new HashMap<>();

    /** Held for good: every removal is refused. */
    public void hold(String name) {
        refusals.put(name, Integer.MAX_VALUE);
    }

    /** Held for a moment: the next {@code removals} removals are refused. */
    public void hold(String name, int removals) {
        refusals.put(name, removals);
    }

    /** Whether {@code name} is held open now (a removal of it would be refused); counts nothing. */
    public boolean held(String name) {
        return refusals.getOrDefault(name, 0) > 0;
    }

    /** Whether a removal of {@code name} is refused now; counts it. */
    public boolean refuse(String name) {
        int left = refusals.getOrDefault(name, 0);
        if (left <= 0) {
            return false;
        }
        refusals.put(name, left == Integer.MAX_VALUE ? left : left - 1);
        return true;
    }
}
