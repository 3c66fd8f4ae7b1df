package pillar.controller.kube;

import java.net.HttpURLConnection;
import java.util.List;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.KubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.volume.VolumeRecords;

/**
 * {@link VolumeRecords} in the Kubernetes API, through fabric8: a 409 answer is a
 * {@link VolumeRecords.Conflict}; every other failure is the client's {@link KubernetesClientException}.
 */
public final class KubeVolumeRecords implements VolumeRecords {
    private final KubernetesClient client;

    public KubeVolumeRecords(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public Optional<PillarVolumeState> get(String name) {
        return Optional.ofNullable(resources().withName(name).get());
    }

    @Override
    public List<PillarVolumeState> list() {
        return resources().list().getItems();
    }

    @Override
    public PillarVolumeState create(PillarVolumeState state) {
        try {
            return resources().resource(state).create();
        } catch (KubernetesClientException e) {
            throw conflictOr(e);
        }
    }

    @Override
    public PillarVolumeState replaceStatus(PillarVolumeState next) {
        try {
            return resources().resource(next).updateStatus();
        } catch (KubernetesClientException e) {
            throw conflictOr(e);
        }
    }

    @Override
    public Optional<PillarVolumeState> replace(PillarVolumeState next) {
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

    private NonNamespaceOperation<PillarVolumeState, KubernetesResourceList<PillarVolumeState>, Resource<PillarVolumeState>>
            resources() {
        return client.resources(PillarVolumeState.class);
    }
}
