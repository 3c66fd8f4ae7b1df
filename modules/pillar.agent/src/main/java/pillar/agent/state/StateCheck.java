package pillar.agent.state;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

import pillar.api.value.Nqn;

/**
 * Decides at start whether the state directory is this agent's, before anything in the kernel is
 * pruned or re-applied: a lost or foreign state directory must never make the agent tear down the
 * live exports it has no record of.
 *
 * <ul>
 *   <li>an identity of this node (and of the configured installation, if one is configured): ready;</li>
 *   <li>no identity and no pillar-csi subsystem in the kernel (a first start, or a reboot before
 *       any export): the identity is written (the configured installation, else a new one): ready;</li>
 *   <li>no identity but pillar-csi subsystems live, an identity of another node or installation,
 *       or a damaged one: {@link Verdict.Missing}, nothing is written; the agent prunes nothing,
 *       re-applies nothing and admits no lifecycle call until {@link StateRecovery} has run.</li>
 * </ul>
 */
public final class StateCheck {
    /** The reason reported for {@link Verdict.Missing} (GetCapabilities.problem, readiness, logs). */
    public static final String REASON = "AgentStateMissing";

    private StateCheck() {
    }

    /** What the check found. */
    public sealed interface Verdict {
        /** The installation the backends own volumes of. */
        InstallationId installation();

        /** The state directory is this agent's. */
        record Ready(StateIdentity identity) implements Verdict {
            @Override
            public InstallationId installation() {
                return identity.installation();
            }
        }

        /**
         * The state directory is not this agent's.
         *
         * @param installation the configured one, else the one on file, else a new one that owns nothing
         * @param message      the condition, the live subsystems and the recovery, for a person
         */
        record Missing(InstallationId installation, String message) implements Verdict {
        }
    }

    /**
     * @param node       this agent's node name
     * @param configured the configured installation, if any
     * @param live       the pillar-csi subsystems the kernel holds now
     * @param recovery   the command line that recovers, as the operator types it
     */
    public static Verdict run(Path stateDir, String node, Optional<InstallationId> configured, List<Nqn> live, String recovery,
                              Clock clock) {
        Optional<StateIdentity> found;
        try {
            found = StateIdentity.read(stateDir);
        } catch (IllegalStateException e) {
            return missing(configured.orElseGet(InstallationId::random), e.getMessage(), stateDir, live, recovery);
        }
        if (found.isPresent()) {
            StateIdentity identity = found.get();
            if (!identity.node().equals(node)) {
                return missing(configured.orElse(identity.installation()), "the state directory " + stateDir
                        + " belongs to node " + identity.node() + ", not to this node " + node, stateDir, live, recovery);
            }
            if (configured.isPresent() && !configured.get().equals(identity.installation())) {
                return missing(configured.get(), "the state directory " + stateDir + " belongs to installation "
                        + identity.installation() + ", not to the configured agent.installation-id " + configured.get(),
                        stateDir, live, recovery);
            }
            return new Verdict.Ready(identity);
        }
        if (!live.isEmpty()) {
            return missing(configured.orElseGet(InstallationId::random), "the state directory " + stateDir
                    + " has no identity, but the kernel exports pillar-csi subsystems", stateDir, live, recovery);
        }
        StateIdentity identity = new StateIdentity(node, configured.orElseGet(InstallationId::random), clock.instant());
        identity.write(stateDir);
        return new Verdict.Ready(identity);
    }

    private static Verdict missing(InstallationId installation, String condition, Path stateDir, List<Nqn> live, String recovery) {
        String subsystems = live.isEmpty() ? "none" : live.size() + " (" + String.join(", ", live.stream().limit(5).map(Nqn::value).toList())
                + (live.size() > 5 ? ", ..." : "") + ")";
        return new Verdict.Missing(installation, REASON + ": " + condition + "; live pillar-csi subsystems: " + subsystems
                + ". The agent prunes nothing, re-applies nothing and refuses every lifecycle call until an operator recovers:"
                + " the exports stay live; run '" + recovery + "' (it rebuilds the export records of " + stateDir
                + " from the live subsystems and writes the identity), then restart the agent");
    }
}
