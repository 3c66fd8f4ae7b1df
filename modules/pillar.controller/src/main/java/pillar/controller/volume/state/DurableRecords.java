package pillar.controller.volume.state;

import java.util.List;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * The port to one kind of the controller's durable records in the cluster (PillarVolumeStates,
 * PillarSnapshotStates), one per ID, its name. Every write is one compare-and-swap on the record's
 * resourceVersion: a write naming another version than the stored one changes nothing and throws
 * {@link Conflict}. Each write returns the record as stored (a new resourceVersion); the caller
 * retries, deciding again on a fresh read. Semantics of the Kubernetes API: a create assigns the uid,
 * resourceVersion, generation and creationTimestamp; a status write changes only the status;
 * {@link #replace} changes only the spec and metadata; a delete of a record that still holds
 * finalizers only marks it (deletionTimestamp), and it goes once its last finalizer is removed. Reads
 * never come from a cache. Adapters: the fabric8 one in production, an in-memory one in tests.
 *
 * @param <T> the kind of record
 */
public interface DurableRecords<T extends HasMetadata> {
    /** The record of that name as stored now. */
    Optional<T> get(String name);

    /** Every record, as stored now. */
    List<T> list();

    /**
     * Stores a new record.
     *
     * @throws Conflict when one of that name exists
     */
    T create(T state);

    /**
     * Replaces the status of the record of {@code next}'s name, if it still has {@code next}'s
     * resourceVersion; its spec and metadata are kept as stored.
     *
     * @throws Conflict when the record has another resourceVersion
     */
    T replaceStatus(T next);

    /**
     * Replaces the spec and metadata (finalizers, annotations) of the record of {@code next}'s name,
     * if it still has {@code next}'s resourceVersion; its status is kept as stored. Empty when the
     * store answered without the record: it went, its deletion having waited for the finalizer removed.
     *
     * @throws Conflict when the record has another resourceVersion
     */
    Optional<T> replace(T next);

    /**
     * Deletes the record of that name if it still has that resourceVersion; a record already gone is
     * left so. One that holds finalizers is only marked for deletion.
     *
     * @throws Conflict when the record has another resourceVersion
     */
    void delete(String name, String resourceVersion);

    /** A write refused because the record changed (or exists, for a create) meanwhile: read it again. */
    final class Conflict extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Conflict(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
