package pillar.controller.csi;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriver;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import pillar.runtime.server.CsiException;
import pillar.runtime.server.Driver;
import pillar.controller.reconcile.loop.EventRecorder;
import pillar.controller.volume.publish.SharedHostNqns;

/**
 * Which nodes report a host NQN: the {@code pillar.csi.io} node IDs that kubelet records on the
 * CSINode objects (pillar-node's node ID is its host NQN), read from an informer's cache indexed by
 * that ID, never by a list per call. One NQN on two nodes (a cloned OS image's /etc/nvme/hostnqn)
 * makes them one host to the target, which breaks ReadWriteOnce: such an NQN is refused
 * ({@link SharedHostNqns}, on publish), and each node that newly shares one gets a Warning event.
 */
public final class HostNqns implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(HostNqns.class.getName());
    private static final String BY_NODE_ID = "pillar-node-id";

    private final SharedIndexInformer<CSINode> informer;
    private final EventRecorder events;

    private HostNqns(KubernetesClient client, EventRecorder events) {
        this.events = events;
        // no resync: an unchanged CSINode is never announced again
        this.informer = client.storage().v1().csiNodes().runnableInformer(0);
        informer.addIndexers(Map.of(BY_NODE_ID, csiNode -> nodeId(csiNode).map(List::of).orElse(List.of())));
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(CSINode obj) {
                announce(obj);
            }

            @Override
            public void onUpdate(CSINode old, CSINode now) {
                if (!nodeId(old).equals(nodeId(now))) {
                    announce(now);
                }
            }

            @Override
            public void onDelete(CSINode obj, boolean finalStateUnknown) {
            }
        });
    }

    /** Starts watching the CSINode objects; the caller closes it. */
    public static HostNqns start(KubernetesClient client, EventRecorder events) {
        HostNqns nqns = new HostNqns(client, events);
        nqns.informer.start().whenComplete((ok, failure) -> {
            if (failure != null) {
                LOG.severe("the CSINode informer did not start (may the controller list and watch csinodes?): " + failure);
            }
        });
        return nqns;
    }

    /** The names of the nodes whose pillar.csi.io node ID is this NQN, sorted. */
    SortedSet<String> nodes(String nqn) {
        SortedSet<String> names = new TreeSet<>();
        informer.getIndexer().byIndex(BY_NODE_ID, nqn).forEach(c -> names.add(c.getMetadata().getName()));
        return names;
    }

    /**
     * {@link #nodes}, once the cache has synced.
     *
     * @throws CsiException UNAVAILABLE until then
     */
    public SortedSet<String> synced(String nqn) {
        if (!informer.hasSynced()) {
            throw CsiException.unavailable("the controller has not read the CSINode objects yet (it needs list and watch on"
                    + " storage.k8s.io csinodes); retry shortly");
        }
        return nodes(nqn);
    }

    private void announce(CSINode changed) {
        nodeId(changed).ifPresent(nqn -> {
            SortedSet<String> names = nodes(nqn);
            if (names.size() < 2) {
                return;
            }
            String message = SharedHostNqns.message(nqn, names);
            LOG.warning(message);
            informer.getIndexer().byIndex(BY_NODE_ID, nqn).forEach(c -> events.warning(node(c), SharedHostNqns.REASON, message));
        });
    }

    /** The Node a CSINode belongs to (its owner, as kubelet sets it; else the node of its name). */
    private static HasMetadata node(CSINode csiNode) {
        String uid = csiNode.getMetadata().getOwnerReferences() == null ? null : csiNode.getMetadata().getOwnerReferences()
                .stream().filter(o -> "Node".equals(o.getKind())).map(OwnerReference::getUid).findFirst().orElse(null);
        Node node = new NodeBuilder().withNewMetadata().withName(csiNode.getMetadata().getName()).withUid(uid).endMetadata()
                .build();
        node.setApiVersion("v1");
        node.setKind("Node");
        return node;
    }

    /** The pillar.csi.io node ID on a CSINode, if the driver is registered there. */
    static Optional<String> nodeId(CSINode csiNode) {
        if (csiNode.getSpec() == null || csiNode.getSpec().getDrivers() == null) {
            return Optional.empty();
        }
        return csiNode.getSpec().getDrivers().stream()
                .filter(d -> Driver.NAME.equals(d.getName()))
                .map(CSINodeDriver::getNodeID)
                .filter(Objects::nonNull)
                .filter(id -> !id.isEmpty())
                .findFirst();
    }

    @Override
    public void close() {
        informer.close();
    }
}
