package pillar.controller.volume.publish;

import java.util.List;
import java.util.SortedSet;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import pillar.api.value.Nqn;
import pillar.controller.crd.Grammars;
import pillar.runtime.server.CsiException;
import pillar.controller.volume.Inventory;

/**
 * The IP address an NFS export admits for a node: the InternalIP, of the NFS server's address
 * family, of the one Node whose CSINode reports this node ID. The address is read from the Node
 * object (never from the node's own word) and recorded on the publication, so that the unpublish
 * removes exactly what the publish admitted.
 */
final class NodeAddresses {
    private NodeAddresses() {
    }

    /**
     * The node's client address.
     *
     * @throws CsiException NOT_FOUND when no node reports this node ID, FAILED_PRECONDITION when its
     *                      Node has no InternalIP of the server's family
     */
    static String clientAddress(Inventory inventory, Nqn nodeId, String serverAddress) {
        SortedSet<String> names = inventory.nodesWithHostNqn(nodeId.value());
        if (names.isEmpty()) {
            throw CsiException.notFound("no node reports node ID " + nodeId + " (on its CSINode): is pillar-node running there?");
        }
        String name = names.first();
        Node node = inventory.node(name).orElseThrow(() -> CsiException.notFound("node " + name + " (node ID " + nodeId
                + ") does not exist"));
        boolean ipv6 = serverAddress.contains(":");
        List<NodeAddress> addresses = node.getStatus() == null || node.getStatus().getAddresses() == null ? List.of()
                : node.getStatus().getAddresses();
        return addresses.stream()
                .filter(a -> "InternalIP".equals(a.getType()) && Grammars.isIpLiteral(a.getAddress())
                        && a.getAddress().contains(":") == ipv6)
                .map(NodeAddress::getAddress)
                .findFirst()
                .orElseThrow(() -> CsiException.precondition("node " + name + " has no InternalIP of the NFS server's family"
                        + " (" + (ipv6 ? "IPv6" : "IPv4") + ", server " + serverAddress + ") in its status: the export"
                        + " admits each node by that address"));
    }
}
