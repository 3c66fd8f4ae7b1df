package pillar.controller.volume.publish;

import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;

import pillar.runtime.server.Driver;

/**
 * A host NQN that two or more nodes report as their node ID is never published to: the target
 * would take both nodes for one host. The refusal's reason and words. Pure functions.
 */
public final class SharedHostNqns {
    /** The reason of the refusal's events. */
    public static final String REASON = "DuplicateHostNqn";

    private SharedHostNqns() {
    }

    /** Why an NQN reported by these nodes must not be published to (two or more report it); empty when it may be. */
    public static Optional<String> sharing(String nqn, SortedSet<String> nodes) {
        return nodes.size() > 1 ? Optional.of(message(nqn, nodes)) : Optional.empty();
    }

    /** The refusal's words: which nodes, why, and what to do. */
    public static String message(String nqn, Set<String> nodes) {
        return "host NQN " + nqn + " is the " + Driver.NAME + " node ID of nodes " + String.join(" and ", nodes)
                + " (their CSINode objects): the target cannot tell them apart, so no volume is published to it; give each"
                + " node its own NQN (write a new one, e.g. from 'nvme gen-hostnqn', to /etc/nvme/hostnqn on all but one)"
                + " and restart pillar-node there";
    }
}
