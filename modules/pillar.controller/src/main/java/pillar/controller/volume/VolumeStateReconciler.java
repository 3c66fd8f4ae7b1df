package pillar.controller.volume;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ExportVolumeResponse;
import pillar.runtime.server.CsiException;
import pillar.runtime.server.VolumeLocks;
import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentClient;
import pillar.controller.agent.AgentException;
import pillar.controller.crd.Condition;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.VolumeExport;
import pillar.controller.crd.VolumePhase;
import pillar.controller.reconcile.loop.Events;
import pillar.controller.reconcile.loop.Reconciler;
import pillar.controller.reconcile.loop.Result;
import pillar.controller.volume.create.AbandonedCreates;
import pillar.controller.volume.publish.HostAuthentication;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;

/**
 * Keeps condition {@value PillarVolumeState#EXPORT_SPEC_MISSING} of every PillarVolumeState, and
 * carries out the documented recovery. A state without a usable export spec reports it (status and a
 * Warning event) and is never published; pillar-csi does not guess one from what runs. An operator
 * records the spec explicitly with the annotation {@value PillarVolumeState#EXPORT_SPEC_ANNOTATION};
 * it is checked (grammar, then the agent: its kernel must do what the spec requires, and exporting the
 * volume so is accepted only when it is not exported otherwise), written into the spec, and publishing works from then on. A state deleted by
 * hand (held by its finalizer) is reported with a Warning event
 * {@value PillarVolumeState#DELETION_HELD} each time it is reconciled. A create that never
 * completed and whose claim is gone is removed after a grace period ({@link AbandonedCreates}).
 */
public final class VolumeStateReconciler implements Reconciler<PillarVolumeState> {
    /** The reasons of the condition. */
    public static final String NO_EXPORT_SPEC = "NoExportSpec";
    public static final String INVALID_ANNOTATION = "InvalidExportSpecAnnotation";
    public static final String CONFLICT = "ExportSpecConflict";
    public static final String AGENT_ERROR = "AgentError";
    public static final String RECORDED = "ExportSpecRecorded";

    private static final Logger LOG = Logger.getLogger(VolumeStateReconciler.class.getName());

    private final VolumeStates states;
    private final Steps steps;
    private final AgentClient agents;
    private final AgentLocator locator;
    private final VolumeLocks locks;
    private final Events events;
    private final Clock clock;
    private final AbandonedCreates abandoned;
    private final HostAuthentication auth;

    /** @param volumes the volume state machine, shared with the CSI service (and so its locks) */
    public VolumeStateReconciler(Volumes volumes) {
        this.states = volumes.states;
        this.steps = volumes.steps;
        this.agents = volumes.agents;
        this.locator = volumes.locator;
        this.locks = volumes.locks;
        this.events = volumes.events;
        this.clock = volumes.clock;
        this.abandoned = volumes.abandoned;
        this.auth = volumes.auth;
    }

    @Override
    public Result reconcile(PillarVolumeState seen) {
        VolumeId id;
        try {
            id = VolumeId.of(seen.getMetadata().getName());
        } catch (InvalidValueException e) {
            return Result.done(); // not a name this controller ever gave a state
        }
        Optional<PillarVolumeState> current = states.get(id);
        if (current.isEmpty()) {
            return Result.done();
        }
        PillarVolumeState state = current.get();
        if (Records.deletionHeld(state)) {
            String message = "deleted by hand, and kept: it is the only record of volume " + id + ", which still exists;"
                    + " it goes when the volume is deleted (delete its PersistentVolumeClaim, or the PersistentVolume"
                    + " with reclaim policy Delete)";
            LOG.warning("PillarVolumeState " + id + " " + message);
            events.warning(state, PillarVolumeState.DELETION_HELD, message);
        }
        AbandonedCreates.Outcome outcome = abandoned.look(state);
        if (!(outcome instanceof AbandonedCreates.Outcome.Kept kept)) {
            return Result.done();
        }
        Result exportSpec = exportSpec(id, state);
        return exportSpec.next() == Result.Next.DONE ? kept.next() : exportSpec;
    }

    /** Condition ExportSpecMissing, and the operator's recorded decision. */
    private Result exportSpec(VolumeId id, PillarVolumeState state) {
        VolumeExport export = state.getSpec().getExport();
        String problem = export == null ? "it has none" : ExportSpecs.problem(export);
        if (problem == null) {
            // the condition appears only once a state was seen without one: a healthy volume gets no write
            boolean reported = state.getStatus() != null && Conditions.find(state.getStatus().getConditions(),
                    PillarVolumeState.EXPORT_SPEC_MISSING).isPresent();
            if (reported) {
                condition(state, false, RECORDED, "export spec " + export);
            }
            return Result.done();
        }
        Map<String, String> annotations = state.getMetadata().getAnnotations();
        String annotation = annotations == null ? null : annotations.get(PillarVolumeState.EXPORT_SPEC_ANNOTATION);
        if (annotation == null) {
            condition(state, true, NO_EXPORT_SPEC, ExportSpecs.missing(id, problem));
            return Result.done();
        }
        VolumeExport decided;
        try {
            decided = ExportSpecs.parse(annotation);
        } catch (InvalidValueException e) {
            condition(state, true, INVALID_ANNOTATION, e.getMessage() + "; nothing was recorded");
            return Result.done();
        }
        try {
            // acting on the volume (the agent, then the spec): held like a CSI call, never beside one
            return locks.run(id, "recording its export spec", () -> states.get(id).map(s -> record(s, decided)).orElse(Result.done()));
        } catch (CsiException busy) {
            return Result.requeueAfter(Duration.ofSeconds(1)); // a CSI call holds the volume; look again after it
        }
    }

    /** The operator's decision, checked against the agent when the volume may be exported there, then recorded. */
    private Result record(PillarVolumeState state, VolumeExport decided) {
        VolumeId id = VolumeId.of(state.getMetadata().getName());
        VolumePhase phase = Records.phase(state);
        if (phase == VolumePhase.Deleting) {
            return Result.done();
        }
        Optional<String> nqn = Optional.empty();
        if (phase == VolumePhase.Exporting || phase == VolumePhase.Exported) {
            try {
                // an agent of a release before TLS would export a tlsRequired spec in plaintext: never ask it
                auth.requireSupported(state.getSpec().getAgent(), decided);
            } catch (CsiException unsupported) {
                condition(state, true, AGENT_ERROR, unsupported.getMessage() + "; the annotation was not recorded");
                return Result.retry();
            }
            try {
                state = steps.advance(state, EnumSet.of(phase), phase, s -> { });
                ExportVolumeResponse exported = agents.exportVolume(locator.target(state.getSpec().getAgent()),
                        ExportVolumeRequest.newBuilder().setToken(Records.token(state).toProto()).setVolumeId(id.value())
                                .setBackend(state.getSpec().getBackend()).setExport(ExportSpecs.toProto(decided)).build());
                nqn = Optional.of(exported.getSubsystemNqn());
            } catch (AgentException e) {
                RuntimeException refusal = HostAuthentication.kernelRefusal(e, state.getSpec().getAgent());
                if (refusal != e) {
                    condition(states.get(id).orElse(state), true, AGENT_ERROR, refusal.getMessage() + "; the annotation was not recorded");
                    return Result.retry();
                }
                boolean conflict = e.kind() == AgentException.Kind.FAILED_PRECONDITION;
                condition(states.get(id).orElse(state), true, conflict ? CONFLICT : AGENT_ERROR, (conflict
                        ? "the agent has the volume exported otherwise; the annotation was not recorded: " : "") + e.getMessage());
                return conflict ? Result.done() : Result.retry();
            }
        }
        state = states.updateSpec(state, s -> {
            if (s.getSpec().getExport() != null && ExportSpecs.problem(s.getSpec().getExport()) == null) {
                return Optional.empty();
            }
            var spec = states.specOf(s);
            spec.setExport(decided);
            return Optional.of(spec);
        });
        if (nqn.isPresent()) {
            String subsystem = nqn.get();
            state = steps.record(state, EnumSet.of(phase), VolumePhase.Exported, s -> s.setSubsystemNqn(subsystem));
        }
        condition(state, false, RECORDED, "export spec " + decided + " recorded from the operator's annotation");
        return Result.done();
    }

    /**
     * Sets the condition by compare-and-swap on the status, when it says something new, and says so
     * in an event once written: a Warning while the spec is missing (the condition is true), a Normal
     * event once it is recorded.
     */
    private void condition(PillarVolumeState state, boolean missing, String reason, String message) {
        boolean[] transition = {false};
        PillarVolumeState written = states.updateStatus(state, s -> {
            List<Condition> current = s.getStatus() == null ? List.of() : s.getStatus().getConditions();
            long generation = s.getMetadata().getGeneration() == null ? 0 : s.getMetadata().getGeneration();
            List<Condition> next = Conditions.with(current, PillarVolumeState.EXPORT_SPEC_MISSING, missing, reason, message,
                    generation, clock.instant());
            if (next.equals(current)) {
                return Optional.empty();
            }
            transition[0] = Conditions.transitions(current, PillarVolumeState.EXPORT_SPEC_MISSING, missing, reason);
            var status = states.statusOf(s);
            status.setConditions(next);
            return Optional.of(status);
        });
        if (transition[0]) {
            String line = "PillarVolumeState " + written.getMetadata().getName() + ": " + PillarVolumeState.EXPORT_SPEC_MISSING
                    + "=" + missing + " " + reason + ": " + message;
            if (missing) {
                LOG.warning(line);
                events.warning(written, reason, message);
            } else {
                LOG.info(line);
                events.normal(written, reason, message);
            }
        }
    }
}
