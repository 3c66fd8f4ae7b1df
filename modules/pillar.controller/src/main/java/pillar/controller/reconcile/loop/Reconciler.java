package pillar.controller.reconcile.loop;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Brings the world in line with one kind of object. Called for one name at a time (never twice at
 * once for the same name), with the object as the informer last saw it.
 *
 * @param <T> the kind of object reconciled
 */
public interface Reconciler<T extends HasMetadata> {
    /**
     * Acts on the object and records the outcome in its status. A failure it understands is a
     * condition plus {@link Result#retry()}; an exception it throws is logged and retried with
     * backoff as well.
     */
    Result reconcile(T resource);

    /** The object of that name is gone: remove what it owned. Called again until it returns done. */
    default Result deleted(String name) {
        return Result.done();
    }
}
