package pillar.controller.volume;

import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import pillar.runtime.server.CsiException;
import pillar.api.value.VolumeId;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.PillarVolumeStateStatus;

/**
 * The PillarVolumeStates in their {@link VolumeRecords} (the Kubernetes API in production), read
 * directly (never from a cache) and written only by compare-and-swap on the resourceVersion: {@link #updateStatus} decides on the state as it is,
 * writes, and on a conflict (409) reads it again and decides again, so a decision is always made
 * on what it replaces. The object's name is the volume ID. A state holds
 * {@link PillarVolumeState#FINALIZER} until {@link #delete} removes it: one deleted by hand is still
 * read and written as before, and goes when the volume is deleted.
 */
public final class VolumeStates {
    /** Conflicts in a row before giving up with ABORTED (the CO retries). */
    private static final int ATTEMPTS = 16;

    /** Told of every write, as the API server answered it (ListVolumes awaits them: {@code pillar.controller.csi.VolumeCatalog}). */
    public interface Writes {
        Writes NONE = new Writes() {
            @Override
            public void wrote(PillarVolumeState state) {
            }

            @Override
            public void deleted(String name) {
            }
        };

        /** The state as written (null when the API server answered without it). */
        void wrote(PillarVolumeState state);

        /** The state of that name was deleted (or goes, its last finalizer removed). */
        void deleted(String name);
    }

    /** Deep copies through JSON, as fabric8's client makes them (its default serialization). */
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private final VolumeRecords records;
    private final Writes writes;

    public VolumeStates(VolumeRecords records) {
        this(records, Writes.NONE);
    }

    public VolumeStates(VolumeRecords records, Writes writes) {
        this.records = records;
        this.writes = writes;
    }

    public Optional<PillarVolumeState> get(VolumeId id) {
        return records.get(id.value());
    }

    /** Every state, read now. */
    public java.util.List<PillarVolumeState> list() {
        return records.list();
    }

    /** Writes a new state; when one of that name appeared meanwhile, that one is returned instead. */
    PillarVolumeState create(PillarVolumeState state) {
        try {
            PillarVolumeState created = records.create(state);
            writes.wrote(created);
            return created;
        } catch (VolumeRecords.Conflict e) {
            return get(VolumeId.of(state.getMetadata().getName())).orElseThrow(() -> e);
        }
    }

    /**
     * Replaces the status by compare-and-swap. {@code decide} gets the state as it is now and answers
     * the status to write (a new object: {@link #statusOf} copies one), or empty when nothing needs
     * writing; it may throw a {@link CsiException} to refuse. Returns the state as written (or as
     * read, when nothing was written).
     *
     * @throws CsiException NOT_FOUND when the state is gone, ABORTED after too many conflicts
     */
    public PillarVolumeState updateStatus(PillarVolumeState current, Function<PillarVolumeState,
            Optional<PillarVolumeStateStatus>> decide) {
        return cas(current, state -> decide.apply(state).map(status -> {
            PillarVolumeState next = copy(state);
            next.setStatus(status);
            return records.replaceStatus(next);
        }));
    }

    /** Replaces the spec by compare-and-swap, as {@link #updateStatus} does the status. */
    public PillarVolumeState updateSpec(PillarVolumeState current, Function<PillarVolumeState,
            Optional<PillarVolumeStateSpec>> decide) {
        return cas(current, state -> decide.apply(state).map(spec -> {
            PillarVolumeState next = copy(state);
            next.setSpec(spec);
            return records.replace(next).orElse(null);
        }));
    }

    /**
     * Deletes the state if {@code stillDeletable} holds for it as it is now: first its finalizer, then
     * the state (both by compare-and-swap); a conflict reads it again. A state already gone is success.
     */
    void delete(PillarVolumeState current, Predicate<PillarVolumeState> stillDeletable) {
        PillarVolumeState state = current;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            if (!stillDeletable.test(state)) {
                throw CsiException.aborted("volume " + state.getMetadata().getName() + " changed while it was being deleted");
            }
            try {
                PillarVolumeState held = state;
                if (held.getMetadata().getFinalizers().contains(PillarVolumeState.FINALIZER)) {
                    state = release(held);
                    if (held.getMetadata().getDeletionTimestamp() != null) {
                        writes.deleted(held.getMetadata().getName());
                        return; // deleted by hand before: its deletion waited only for the finalizer
                    }
                }
                if (state != null) {
                    records.delete(state.getMetadata().getName(), state.getMetadata().getResourceVersion());
                    writes.deleted(state.getMetadata().getName());
                    return;
                }
                state = held; // the API server answered the release without the object: read it again
            } catch (VolumeRecords.Conflict e) {
                // changed meanwhile: read it again
            }
            Optional<PillarVolumeState> now = get(VolumeId.of(state.getMetadata().getName()));
            if (now.isEmpty()) {
                return;
            }
            state = now.get();
        }
        throw CsiException.aborted("volume " + current.getMetadata().getName() + " keeps changing; retry later");
    }

    /**
     * Writes the state without the finalizer, by compare-and-swap; returns it as written (null when the
     * API server answered without it, as fabric8's mock does for a state deleted by hand, which goes
     * once its last finalizer does).
     */
    private PillarVolumeState release(PillarVolumeState state) {
        PillarVolumeState next = copy(state);
        next.getMetadata().getFinalizers().remove(PillarVolumeState.FINALIZER);
        PillarVolumeState written = records.replace(next).orElse(null);
        writes.wrote(written);
        return written;
    }

    /** A copy of the state's status to change (a fresh, empty one when it has none yet). */
    PillarVolumeStateStatus statusOf(PillarVolumeState state) {
        // the status alone: a copy of the whole object would be thrown away but for it
        return state.getStatus() == null ? new PillarVolumeStateStatus() : copy(state.getStatus());
    }

    /** A copy of the state's spec to change. */
    PillarVolumeStateSpec specOf(PillarVolumeState state) {
        return copy(state.getSpec());
    }

    private PillarVolumeState cas(PillarVolumeState current, Function<PillarVolumeState, Optional<PillarVolumeState>> write) {
        PillarVolumeState state = current;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            if (state.getMetadata().getDeletionTimestamp() != null && !Records.deletionHeld(state)) {
                // deleted while not held (a state from before the finalizer, or its finalizer removed by hand)
                throw CsiException.notFound("volume " + state.getMetadata().getName() + " is being removed");
            }
            try {
                Optional<PillarVolumeState> written = write.apply(state);
                written.ifPresent(writes::wrote);
                return written.orElse(state);
            } catch (VolumeRecords.Conflict e) {
                // changed meanwhile: read it again
            }
            String name = state.getMetadata().getName();
            String uid = state.getMetadata().getUid();
            state = get(VolumeId.of(name)).filter(s -> uid.equals(s.getMetadata().getUid()))
                    .orElseThrow(() -> CsiException.notFound("volume " + name + " does not exist any more"));
        }
        throw CsiException.aborted("volume " + current.getMetadata().getName() + " keeps changing; retry later");
    }

    /** A deep copy (through JSON) of a state or a part of it. */
    private <T> T copy(T value) {
        return JSON.clone(value);
    }
}
