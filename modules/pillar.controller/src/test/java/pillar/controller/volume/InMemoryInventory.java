package pillar.controller.volume;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarStore;

/**
 * {@link Inventory} in memory: what a test {@linkplain #put puts} (or removes), read back as copies,
 * so that a caller's change never reaches it. Host NQNs are reported by node name as
 * {@link #reportHostNqn} says. Thread-safe.
 */
public final class InMemoryInventory implements Inventory {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private final Map<String, PillarStore> stores = new ConcurrentHashMap<>();
    private final Map<String, PillarProtocol> protocols = new ConcurrentHashMap<>();
    private final Map<String, PillarAgent> agents = new ConcurrentHashMap<>();
    private final Map<String, Node> nodes = new ConcurrentHashMap<>();
    private final Map<String, PersistentVolumeClaim> claims = new ConcurrentHashMap<>();
    private final Map<String, String> hostNqns = new ConcurrentHashMap<>();

    public InMemoryInventory put(PillarStore store) {
        stores.put(store.getMetadata().getName(), copy(store));
        return this;
    }

    public InMemoryInventory put(PillarProtocol protocol) {
        protocols.put(protocol.getMetadata().getName(), copy(protocol));
        return this;
    }

    public InMemoryInventory put(PillarAgent agent) {
        agents.put(agent.getMetadata().getName(), copy(agent));
        return this;
    }

    public InMemoryInventory put(Node node) {
        nodes.put(node.getMetadata().getName(), copy(node));
        return this;
    }

    public InMemoryInventory put(PersistentVolumeClaim claim) {
        claims.put(claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName(), copy(claim));
        return this;
    }

    public void removeClaim(String namespace, String name) {
        claims.remove(namespace + "/" + name);
    }

    /** The node of that name reports this host NQN as its node ID (as its CSINode would). */
    public InMemoryInventory reportHostNqn(String node, String nqn) {
        hostNqns.put(node, nqn);
        return this;
    }

    @Override
    public Optional<PillarStore> store(String name) {
        return Optional.ofNullable(stores.get(name)).map(InMemoryInventory::copy);
    }

    @Override
    public List<PillarStore> stores() {
        return new TreeMap<>(stores).values().stream().map(InMemoryInventory::copy).toList();
    }

    @Override
    public Optional<PillarProtocol> protocol(String name) {
        return Optional.ofNullable(protocols.get(name)).map(InMemoryInventory::copy);
    }

    @Override
    public Optional<PillarAgent> agent(String name) {
        return Optional.ofNullable(agents.get(name)).map(InMemoryInventory::copy);
    }

    @Override
    public Optional<Node> node(String name) {
        return Optional.ofNullable(nodes.get(name)).map(InMemoryInventory::copy);
    }

    @Override
    public Optional<PersistentVolumeClaim> claim(String namespace, String name) {
        return Optional.ofNullable(claims.get(namespace + "/" + name)).map(InMemoryInventory::copy);
    }

    @Override
    public SortedSet<String> nodesWithHostNqn(String nqn) {
        SortedSet<String> names = new TreeSet<>();
        hostNqns.forEach((node, reported) -> {
            if (reported.equals(nqn)) {
                names.add(node);
            }
        });
        return names;
    }

    private static <T> T copy(T value) {
        return JSON.clone(value);
    }
}
