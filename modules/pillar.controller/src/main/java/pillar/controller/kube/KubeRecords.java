package pillar.controller.kube;

import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import pillar.controller.volume.state.DurableRecords;

/**
 * {@link DurableRecords} of one kind in the Kubernetes API, through fabric8: a 409 answer is a
 * {@link DurableRecords.Conflict}; every other failure is the client's {@link KubernetesClientException}.
 *
 * @param <T> the custom resource's class
 */
public class KubeRecords<T extends HasMetadata> implements DurableRecords<T> {
    private final KubernetesClient client;
    private final Class<T> kind;

    public KubeRecords(KubernetesClient client, Class<T> kind) {
        this.client = client;
        this.kind = kind;
    }

    @Override
    public Optional<T> get(String name) {
        return Optional.ofNullable(resources().withName(name).get());
    }

    @Override
    public List<T> list() {
        return resources().list().getItems();
    }

    @Override
    public T create(T state) {
        try {
            return resources().resource(state).create();
        } catch (KubernetesClientException e) {
            throw conflictOr(e);
        }
    }

    @Override
    public T replaceStatus(T next) {
        try {
            return resources().resource(next).updateStatus();
        } catch (KubernetesClientException e) {
            throw conflictOr(e);
        }
    }

    @Override
    public Optional<T> replace(T next) {
        try {
            return Optional.ofNullable(resources().resource(next).update());
        } catch (KubernetesClientException e) {
            throw conflictOr(e);
        }
    }

    @Override
    public void delete(String name, String resourceVersion) {
        try {
            resources().withName(name).lockResourceVersion(resourceVersion).delete();
        } catch (KubernetesClientException e) {
            throw conflictOr(e);
        }
    }

    private static RuntimeException conflictOr(KubernetesClientException e) {
        return e.getCode() == HttpURLConnection.HTTP_CONFLICT ? new Conflict(e.getMessage(), e) : e;
    }

    private NonNamespaceOperation<T, KubernetesResourceList<T>, Resource<T>>
            resources() {
        return client.resources(kind);
    }
}
