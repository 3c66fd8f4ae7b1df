package pillar.controller.volume.state;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import pillar.runtime.server.CsiException;

/**
 * One kind of durable record in its {@link DurableRecords} (the Kubernetes API in production), read
 * directly (never from a cache) and written only by compare-and-swap on the resourceVersion:
 * {@link #updateStatus} decides on the record as it is, writes, and on a conflict (409) reads it again
 * and decides again, so a decision is always made on what it replaces. A record holds its kind's
 * finalizer until {@link #delete} removes it: one deleted by hand is still read and written as before,
 * and goes when the controller ends its lifecycle.
 *
 * @param <S> the spec's type
 * @param <U> the status' type
 * @param <T> the record's type
 */
public class DurableStates<S, U, T extends CustomResource<S, U>> {
    /** Conflicts in a row before giving up with ABORTED (the CO retries). */
    private static final int ATTEMPTS = 16;

    /** Told of every write, as the API server answered it. */
    public interface Writes<T> {
        /** Told nothing. */
        static <T> Writes<T> none() {
            return new Writes<>() {
                @Override
                public void wrote(T state) {
                }

                @Override
                public void deleted(String name) {
                }
            };
        }

        /** The record as written (null when the API server answered without it). */
        void wrote(T state);

        /** The record of that name was deleted (or goes, its last finalizer removed). */
        void deleted(String name);
    }

    /** Deep copies through JSON, as fabric8's client makes them (its default serialization). */
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private final DurableRecords<T> records;
    private final Writes<T> writes;
    private final String finalizer;
    private final String noun;
    private final Supplier<U> emptyStatus;

    /**
     * @param finalizer   the finalizer every record of this kind carries from its creation
     * @param noun        what a record is of, for messages ("volume", "snapshot")
     * @param emptyStatus a fresh status, for a record that has none yet
     */
    protected DurableStates(DurableRecords<T> records, Writes<T> writes, String finalizer, String noun, Supplier<U> emptyStatus) {
        this.records = records;
        this.writes = writes;
        this.finalizer = finalizer;
        this.noun = noun;
        this.emptyStatus = emptyStatus;
    }

    /** The record of that name, read now. */
    public Optional<T> get(String name) {
        return records.get(name);
    }

    /** Every record, read now. */
    public List<T> list() {
        return records.list();
    }

    /** Writes a new record; when one of that name appeared meanwhile, that one is returned instead. */
    public T create(T state) {
        try {
            T created = records.create(state);
            writes.wrote(created);
            return created;
        } catch (DurableRecords.Conflict e) {
            return get(state.getMetadata().getName()).orElseThrow(() -> e);
        }
    }

    /**
     * Replaces the status by compare-and-swap. {@code decide} gets the record as it is now and answers
     * the status to write (a new object: {@link #statusOf} copies one), or empty when nothing needs
     * writing; it may throw a {@link CsiException} to refuse. Returns the record as written (or as
     * read, when nothing was written).
     *
     * @throws CsiException NOT_FOUND when the record is gone, ABORTED after too many conflicts
     */
    public T updateStatus(T current, Function<T, Optional<U>> decide) {
        return cas(current, state -> decide.apply(state).map(status -> {
            T next = copy(state);
            next.setStatus(status);
            return records.replaceStatus(next);
        }));
    }

    /** Replaces the spec by compare-and-swap, as {@link #updateStatus} does the status. */
    public T updateSpec(T current, Function<T, Optional<S>> decide) {
        return cas(current, state -> decide.apply(state).map(spec -> {
            T next = copy(state);
            next.setSpec(spec);
            return records.replace(next).orElse(null);
        }));
    }

    /**
     * Deletes the record if {@code stillDeletable} holds for it as it is now: first its finalizer, then
     * the record (both by compare-and-swap); a conflict reads it again. A record already gone is success.
     */
    public void delete(T current, Predicate<T> stillDeletable) {
        T state = current;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            if (!stillDeletable.test(state)) {
                throw CsiException.aborted(noun + " " + state.getMetadata().getName() + " changed while it was being deleted");
            }
            try {
                T held = state;
                if (held.getMetadata().getFinalizers().contains(finalizer)) {
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
            } catch (DurableRecords.Conflict e) {
                // changed meanwhile: read it again
            }
            Optional<T> now = get(state.getMetadata().getName());
            if (now.isEmpty()) {
                return;
            }
            state = now.get();
        }
        throw CsiException.aborted(noun + " " + current.getMetadata().getName() + " keeps changing; retry later");
    }

    /** Whether someone asked the API to delete it while the controller's finalizer holds it. */
    public boolean deletionHeld(T state) {
        return state.getMetadata().getDeletionTimestamp() != null && state.getMetadata().getFinalizers().contains(finalizer);
    }

    /** A copy of the record's status to change (a fresh, empty one when it has none yet). */
    public U statusOf(T state) {
        // the status alone: a copy of the whole object would be thrown away but for it
        return state.getStatus() == null ? emptyStatus.get() : copy(state.getStatus());
    }

    /** A copy of the record's spec to change. */
    public S specOf(T state) {
        return copy(state.getSpec());
    }

    /**
     * Writes the record without the finalizer, by compare-and-swap; returns it as written (null when the
     * API server answered without it, as fabric8's mock does for a record deleted by hand, which goes
     * once its last finalizer does).
     */
    private T release(T state) {
        T next = copy(state);
        next.getMetadata().getFinalizers().remove(finalizer);
        T written = records.replace(next).orElse(null);
        writes.wrote(written);
        return written;
    }

    private T cas(T current, Function<T, Optional<T>> write) {
        T state = current;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            if (state.getMetadata().getDeletionTimestamp() != null && !deletionHeld(state)) {
                // deleted while not held (a record from before the finalizer, or its finalizer removed by hand)
                throw CsiException.notFound(noun + " " + state.getMetadata().getName() + " is being removed");
            }
            try {
                Optional<T> written = write.apply(state);
                written.ifPresent(writes::wrote);
                return written.orElse(state);
            } catch (DurableRecords.Conflict e) {
                // changed meanwhile: read it again
            }
            String name = state.getMetadata().getName();
            String uid = state.getMetadata().getUid();
            state = get(name).filter(s -> uid.equals(s.getMetadata().getUid()))
                    .orElseThrow(() -> CsiException.notFound(noun + " " + name + " does not exist any more"));
        }
        throw CsiException.aborted(noun + " " + current.getMetadata().getName() + " keeps changing; retry later");
    }

    /** A deep copy (through JSON) of a record or a part of it. */
    private static <V> V copy(V value) {
        return JSON.clone(value);
    }
}
