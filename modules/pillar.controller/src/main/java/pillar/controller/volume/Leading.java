package pillar.controller.volume;

import pillar.runtime.server.CsiException;

/**
 * Whether this controller replica leads now. Only the leader changes volumes; the others answer
 * UNAVAILABLE so that the sidecars retry (and reach the leader). A leader that lost its lease
 * between this check and its agent call is stopped by fencing, not by this check.
 */
@FunctionalInterface
public interface Leading {
    /** A replica that always leads: leader election is off (one replica). */
    Leading ALWAYS = () -> true;

    boolean now();

    /** @throws CsiException UNAVAILABLE when this replica does not lead */
    default void require() {
        if (!now()) {
            throw CsiException.unavailable("this pillar-controller replica is not the leader; the request is retried until it"
                    + " reaches the leader");
        }
    }
}
