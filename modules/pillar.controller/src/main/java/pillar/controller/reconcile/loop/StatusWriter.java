package pillar.controller.reconcile.loop;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;

/**
 * Writes a Pillar object's status through the status subresource, replacing it whole, and only
 * when it changed. The patch carries the status alone: no spec, no metadata, no resourceVersion,
 * so it neither conflicts with nor overwrites a user's concurrent change of the spec.
 *
 * <p>It is a JSON Patch ({@code add /status}) rather than a merge patch of a minimal
 * {@code {"status": ...}} object: the two mean the same on a real API server, but the test API
 * server merges lists by appending, which would pile conditions up. A JSON Patch is exact on both.
 */
public final class StatusWriter {
    private final KubernetesClient client;

    public StatusWriter(KubernetesClient client) {
        this.client = client;
    }

    /** Replaces the status of {@code current} with {@code status}; answers whether anything was sent. */
    public <T extends CustomResource<?, S>, S> boolean write(T current, S status) {
        String now = Serialization.asJson(status);
        if (current.getStatus() != null && Serialization.asJson(current.getStatus()).equals(now)) {
            return false;
        }
        @SuppressWarnings("unchecked")
        Class<T> type = (Class<T>) current.getClass();
        String patch = Serialization.asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
        client.resources(type).withName(current.getMetadata().getName()).subresource("status")
                .patch(PatchContext.of(PatchType.JSON), patch);
        return true;
    }
}
