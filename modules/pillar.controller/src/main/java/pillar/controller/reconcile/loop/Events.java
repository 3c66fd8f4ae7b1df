package pillar.controller.reconcile.loop;

import io.fabric8.kubernetes.api.model.HasMetadata;

/**
 * Where the controller tells of what it did and what failed, about an object: Kubernetes Events in
 * production ({@link EventRecorder}). Best effort: recording never fails the caller.
 */
public interface Events {
    void normal(HasMetadata about, String reason, String message);

    void warning(HasMetadata about, String reason, String message);
}
