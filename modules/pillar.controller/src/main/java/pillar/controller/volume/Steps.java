package pillar.controller.volume;

import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import pillar.runtime.server.CsiException;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateStatus;
import pillar.controller.crd.VolumePhase;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;

/**
 * Records the progress of a volume's agent steps by compare-and-swap. The rule that makes fencing
 * work: before every agent call that changes a volume, {@link #advance} writes the next
 * publication generation, and the call carries it. A generation is written by exactly one writer
 * (the swap fails for every other), so a controller that lost its lease and calls late carries a
 * generation older than the one its successor's first call left in the agent's mark, and is
 * refused there. Each write checks, on the state as it is now, that this replica still leads and
 * that the phase is one the step may follow; otherwise the operation stops (the CO retries it).
 */
public final class Steps {
    private final VolumeStates states;
    private final Leading leading;

    public Steps(VolumeStates states, Leading leading) {
        this.states = states;
        this.leading = leading;
    }

    /** Phase {@code to} with the next generation, from one of the phases {@code from}; {@code also} adds to the record. */
    public PillarVolumeState advance(PillarVolumeState state, Set<VolumePhase> from, VolumePhase to,
                              Consumer<PillarVolumeStateStatus> also) {
        return write(state, from, to, true, also);
    }

    /** Phase {@code to} without a new generation: after an operation's last agent call. */
    public PillarVolumeState record(PillarVolumeState state, Set<VolumePhase> from, VolumePhase to,
                             Consumer<PillarVolumeStateStatus> also) {
        return write(state, from, to, false, also);
    }

    private PillarVolumeState write(PillarVolumeState state, Set<VolumePhase> from, VolumePhase to, boolean bump,
                                    Consumer<PillarVolumeStateStatus> also) {
        return states.updateStatus(state, now -> {
            leading.require();
            VolumePhase phase = Records.phase(now);
            if (!from.contains(phase)) {
                throw CsiException.aborted("volume " + now.getMetadata().getName() + " is " + phase + " now, not "
                        + from + ": another operation changed it; retry");
            }
            PillarVolumeStateStatus next = states.statusOf(now);
            next.setPhase(to);
            next.setPublicationGeneration(Math.addExact(Records.generation(now), bump ? 1 : 0));
            also.accept(next);
            return Optional.of(next);
        });
    }
}
