package pillar.agent.service;

import java.util.Optional;

import io.grpc.Status;
import pillar.api.agent.v1.Problem;

/**
 * Whether the agent admits calls that change state. It starts closed, and each state is final but
 * the first: re-applying the durable exports at start-up (UNAVAILABLE: the caller retries; a change
 * made meanwhile could be undone by the re-apply, or pruned by it as an export without a record),
 * then open, or refusing for good because the state directory is not this agent's
 * (FAILED_PRECONDITION until an operator recovers it and restarts the agent). Reads are always admitted.
 */
public final class AdmissionGate {
    private final Optional<Problem> problem;
    private volatile Status refusal;

    private AdmissionGate(Status refusal, Optional<Problem> problem) {
        this.refusal = refusal;
        this.problem = problem;
    }

    /** Closed while {@code exports} durable exports are re-applied; {@link #open()} when done. */
    public static AdmissionGate reapplying(int exports) {
        return new AdmissionGate(Status.UNAVAILABLE.withDescription("the agent is starting: re-applying " + exports
                + (exports == 1 ? " export" : " exports") + " to the kernel, try again"), Optional.empty());
    }

    /**
     * Refuses every change for good with FAILED_PRECONDITION and {@code message} (the condition and
     * the recovery); GetCapabilities reports it as its problem, with {@code reason}.
     */
    public static AdmissionGate refusing(String reason, String message) {
        return new AdmissionGate(Status.FAILED_PRECONDITION.withDescription(message),
                Optional.of(Problem.newBuilder().setReason(reason).setMessage(message).build()));
    }

    /** Why the agent refuses for good, for GetCapabilities; empty when it does not. */
    public Optional<Problem> problem() {
        return problem;
    }

    /** Admits every call from now on; a gate refusing for good stays so. */
    public void open() {
        if (problem.isEmpty()) {
            refusal = null;
        }
    }

    public boolean isOpen() {
        return refusal == null;
    }

    /** Throws the refusal unless the gate is open. */
    void admitChange() {
        Status now = refusal;
        if (now != null) {
            throw now.asRuntimeException();
        }
    }
}
