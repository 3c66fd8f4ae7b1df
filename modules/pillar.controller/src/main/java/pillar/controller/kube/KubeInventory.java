package pillar.controller.kube;

import java.util.List;
import java.util.Optional;
import java.util.SortedSet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarStore;
import pillar.controller.csi.HostNqns;
import pillar.controller.volume.Inventory;

/**
 * {@link Inventory} in the Kubernetes API, through fabric8: each read a GET (or LIST) of the API
 * server; the host NQNs from the CSINode informer ({@link HostNqns}). Failures are the client's.
 */
public final class KubeInventory implements Inventory {
    private final KubernetesClient client;
    private final HostNqns nqns;

    public KubeInventory(KubernetesClient client, HostNqns nqns) {
        this.client = client;
        this.nqns = nqns;
    }

    @Override
    public Optional<PillarStore> store(String name) {
        return Optional.ofNullable(client.resources(PillarStore.class).withName(name).get());
    }

    @Override
    public List<PillarStore> stores() {
        return client.resources(PillarStore.class).list().getItems();
    }

    @Override
    public Optional<PillarProtocol> protocol(String name) {
        return Optional.ofNullable(client.resources(PillarProtocol.class).withName(name).get());
    }

    @Override
    public Optional<PillarAgent> agent(String name) {
        return Optional.ofNullable(client.resources(PillarAgent.class).withName(name).get());
    }

    @Override
    public Optional<Node> node(String name) {
        return Optional.ofNullable(client.nodes().withName(name).get());
    }

    @Override
    public Optional<PersistentVolumeClaim> claim(String namespace, String name) {
        return Optional.ofNullable(client.persistentVolumeClaims().inNamespace(namespace).withName(name).get());
    }

    @Override
    public SortedSet<String> nodesWithHostNqn(String nqn) {
        return nqns.synced(nqn);
    }
}
