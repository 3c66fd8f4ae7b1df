package pillar.controller.volume;

import java.util.List;
import java.util.Optional;
import java.util.SortedSet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarStore;

/**
 * The port to what the volume logic reads about the cluster and never writes: stores, protocols,
 * agents, nodes and claims, each as the cluster has it now (a read is never served from a stale
 * cache, except {@link #nodesWithHostNqn}, which is an informer's). Not to be confused with
 * {@code pillar.controller.csi.VolumeCatalog}, the cache of volume states ListVolumes pages.
 * Adapters: the fabric8 one in production, an in-memory one in tests.
 */
public interface Inventory {
    Optional<PillarStore> store(String name);

    /** Every store. */
    List<PillarStore> stores();

    Optional<PillarProtocol> protocol(String name);

    Optional<PillarAgent> agent(String name);

    Optional<Node> node(String name);

    Optional<PersistentVolumeClaim> claim(String namespace, String name);

    /**
     * The names of the nodes whose pillar.csi.io node ID (on their CSINode) is this host NQN, sorted.
     *
     * @throws pillar.runtime.server.CsiException UNAVAILABLE until the nodes have been read
     */
    SortedSet<String> nodesWithHostNqn(String nqn);
}
