package pillar.controller.volume.create;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.EnumSet;
import java.util.Optional;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import pillar.runtime.server.CsiException;
import pillar.runtime.server.VolumeLocks;
import pillar.api.value.VolumeId;
import pillar.controller.crd.Grammars;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.VolumePhase;
import pillar.controller.reconcile.loop.Events;
import pillar.controller.reconcile.loop.Result;
import pillar.controller.volume.AgentLocator;
import pillar.controller.volume.Inventory;
import pillar.controller.volume.state.Records;
import pillar.controller.volume.state.VolumeStates;

/**
 * Removes the creates that nobody will finish: a state whose create never completed (Pending,
 * Creating, Exporting) and whose claim is gone, once it is older than the grace period. The
 * external-provisioner stops retrying CreateVolume for a deleted claim, so without this nothing
 * would ever call DeleteVolume for it. The removal is {@link LifecycleEnd}'s, as DeleteVolume's,
 * holding the volume like a CSI call and only from an incomplete phase (a CreateVolume that
 * completed meanwhile keeps its volume), and is announced by a Normal event
 * {@value #REMOVED}. A completed volume is never touched here: its PersistentVolume's reclaim
 * policy decides.
 *
 * <p>The claim is the one recorded at creation (namespace/name from the provisioner's
 * {@code --extra-create-metadata}); it is the same claim only when the volume's name ends with the
 * claim's UID, as the provisioner names volumes ({@code pvc-<uid>}): a claim made again under the
 * same name has another UID and does not keep the state. A state that records no claim (an older
 * record) is never removed on a guess: it is reported by a Warning event {@value #UNKNOWN_CLAIM},
 * and removed only once an operator deletes it by hand (the explicit decision). An incomplete
 * {@link Adoption} has no claim and is finished by the next publish: it is removed only by hand too,
 * and one the agent never confirmed only forgotten ({@link LifecycleEnd#forget}), its volume untouched.
 */
public final class AbandonedCreates {
    /** The reason of the event after a removal. */
    static final String REMOVED = "AbandonedCreateRemoved";
    /** The reason of the event about an incomplete create that records no claim. */
    static final String UNKNOWN_CLAIM = "AbandonedCreateUnknownClaim";
    static final EnumSet<VolumePhase> INCOMPLETE = EnumSet.of(VolumePhase.Pending, VolumePhase.Creating, VolumePhase.Exporting);

    private static final Logger LOG = Logger.getLogger(AbandonedCreates.class.getName());

    private final Inventory inventory;
    private final VolumeStates states;
    private final LifecycleEnd end;
    private final AgentLocator locator;
    private final VolumeLocks locks;
    private final Events events;
    private final Clock clock;
    private final Duration grace;

    public AbandonedCreates(Inventory inventory, VolumeStates states, LifecycleEnd end, AgentLocator locator, VolumeLocks locks,
                     Events events, Clock clock, Duration grace) {
        this.inventory = inventory;
        this.states = states;
        this.end = end;
        this.locator = locator;
        this.locks = locks;
        this.events = events;
        this.clock = clock;
        this.grace = grace;
    }

    /** What became of a state looked at. */
    public sealed interface Outcome {
        /** Removed, with its volume and export. */
        record Removed() implements Outcome {
        }

        /** Kept; {@code next} says when to look again. */
        record Kept(Result next) implements Outcome {
        }
    }

    public Outcome look(PillarVolumeState state) {
        VolumePhase phase = Records.phase(state);
        if (!INCOMPLETE.contains(phase)) {
            return new Outcome.Kept(Result.done());
        }
        PillarVolumeStateSpec spec = state.getSpec();
        if (Adoption.of(spec)) {
            // no claim and no provisioner behind it: the next publish finishes it; only an operator removes it
            return Records.deletionHeld(state) ? remove(state, "it was deleted by hand") : new Outcome.Kept(Result.done());
        }
        Duration left = grace.minus(Duration.between(created(state), clock.instant()));
        Optional<CreateParameters.Claim> claim = claim(spec.getClaim());
        if (claim.isEmpty()) {
            if (Records.deletionHeld(state)) {
                return remove(state, "it records no claim and was deleted by hand");
            }
            if (left.isPositive()) {
                return new Outcome.Kept(Result.requeueAfter(left));
            }
            String message = "the create of volume " + spec.getVolumeName() + " never completed (" + phase + ") and this state"
                    + " records no claim (made without the provisioner's --extra-create-metadata), so it is not removed"
                    + " automatically; if no PersistentVolumeClaim is provisioned as " + spec.getVolumeName() + ", delete this"
                    + " PillarVolumeState by hand and the controller removes it with its volume and export";
            LOG.warning("PillarVolumeState " + state.getMetadata().getName() + ": " + message);
            events.warning(state, UNKNOWN_CLAIM, message);
            return new Outcome.Kept(Result.requeueAfter(grace));
        }
        Optional<String> gone = gone(claim.get(), spec.getVolumeName());
        if (gone.isEmpty()) {
            return new Outcome.Kept(Result.requeueAfter(grace)); // still provisioned: look again later
        }
        if (left.isPositive()) {
            return new Outcome.Kept(Result.requeueAfter(left));
        }
        return remove(state, gone.get());
    }

    /** Removes it holding the volume, if it is still the same incomplete create; a CSI call on it meanwhile defers it. */
    private Outcome remove(PillarVolumeState seen, String why) {
        VolumeId id = VolumeId.of(seen.getMetadata().getName());
        String uid = seen.getMetadata().getUid();
        try {
            return locks.run(id, "removing an abandoned create", () -> {
                Optional<PillarVolumeState> now = states.get(id).filter(s -> uid.equals(s.getMetadata().getUid()));
                if (now.isEmpty() || !INCOMPLETE.contains(Records.phase(now.get()))) {
                    return new Outcome.Kept(Result.done());
                }
                PillarVolumeState state = now.get();
                VolumePhase phase = Records.phase(state);
                PillarVolumeStateSpec spec = state.getSpec();
                if (Adoption.unconfirmed(state)) {
                    end.forget(state);
                    String message = "forgot the adoption of volume " + id + " (" + phase + "): " + why + "; the agent never"
                            + " confirmed it, so the volume on agent " + spec.getAgent() + " (backend " + spec.getBackend()
                            + ") is left as it is, its data untouched";
                    LOG.info("PillarVolumeState " + id + ": " + message);
                    events.normal(state, REMOVED, message);
                    return new Outcome.Removed();
                }
                end.end(state, locator.target(spec.getAgent()), INCOMPLETE);
                String message = "removed volume " + id + ": its create never completed (" + phase + ") and " + why
                        + "; the " + spec.getBackendKind() + " volume and its export on agent " + spec.getAgent()
                        + " (backend " + spec.getBackend() + ") are gone, and so is this state (lifecycle " + uid + ")";
                LOG.info("PillarVolumeState " + id + ": " + message);
                events.normal(state, REMOVED, message);
                return new Outcome.Removed();
            });
        } catch (CsiException e) {
            if (e.code() == io.grpc.Status.Code.ABORTED) {
                return new Outcome.Kept(Result.requeueAfter(Duration.ofSeconds(1))); // a CSI call holds it, or it changed
            }
            LOG.warning(() -> "PillarVolumeState " + id + ": the abandoned create could not be removed yet: " + e.getMessage());
            return new Outcome.Kept(Result.retry());
        } catch (RuntimeException e) {
            LOG.warning(() -> "PillarVolumeState " + id + ": the abandoned create could not be removed yet: " + e.getMessage());
            return new Outcome.Kept(Result.retry());
        }
    }

    /** Why the claim no longer wants this volume, or empty while it does. */
    private Optional<String> gone(CreateParameters.Claim claim, String volumeName) {
        PersistentVolumeClaim pvc = inventory.claim(claim.namespace(), claim.name()).orElse(null);
        if (pvc == null) {
            return Optional.of("its claim " + claim + " is gone (deleted while it was being provisioned)");
        }
        String uid = pvc.getMetadata().getUid();
        if (uid == null || !volumeName.endsWith(uid)) {
            return Optional.of("its claim " + claim + " was deleted while it was being provisioned (a claim of that name"
                    + " exists again, as another claim: UID " + uid + ")");
        }
        return Optional.empty();
    }

    /** The recorded claim, namespace/name; empty when none was recorded (or what is recorded is not one). */
    private static Optional<CreateParameters.Claim> claim(String recorded) {
        if (recorded == null) {
            return Optional.empty();
        }
        int slash = recorded.indexOf('/');
        if (slash < 0 || !Grammars.isLabel(recorded.substring(0, slash)) || !Grammars.isObjectName(recorded.substring(slash + 1))) {
            return Optional.empty();
        }
        return Optional.of(new CreateParameters.Claim(recorded.substring(0, slash), recorded.substring(slash + 1)));
    }

    private Instant created(PillarVolumeState state) {
        String timestamp = state.getMetadata().getCreationTimestamp();
        return timestamp == null ? clock.instant() : OffsetDateTime.parse(timestamp).toInstant();
    }
}
