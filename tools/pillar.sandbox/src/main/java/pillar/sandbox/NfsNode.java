package pillar.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;

/**
 * A worker that mounts NFS volumes: a pillar-node in its own network namespace (its address is the
 * one the NFS server sees), its CSI client, and its Node and CSINode in the emulated API, as kubelet
 * and node-driver-registrar make them on a cluster: the Node's InternalIP is the namespace's address,
 * the CSINode carries the node ID (NodeGetInfo). The controller finds the client address an export
 * admits from exactly these two objects.
 *
 * @param name   the Node's name ({@value Workloads#NODE_NAME}-NETNS)
 * @param nodeId the node ID pillar-node reports (its host NQN)
 * @param net    its network namespace and addresses
 * @param csi    its CSI socket, as kubelet reaches it
 */
record NfsNode(String name, String nodeId, NfsdBed.NodeNet net, KubeletNode csi) {
    static final String DRIVER = "pillar.csi.io";

    /** Where one NFS node keeps its socket, kubelet directory, stage records and host NQN, below {@code work/<netns>}. */
    record Home(String netns, Path dir) {
        static Home under(Path work, String netns) {
            return new Home(netns, work.resolve(netns));
        }

        Path socket() {
            return kubeletDir().resolve("plugins/pillar.csi.io/csi.sock");
        }

        Path kubeletDir() {
            return dir.resolve("kubelet");
        }

        Path hostNqnFile() {
            return dir.resolve("etc/nvme/hostnqn");
        }

        String nodeName() {
            return Workloads.NODE_NAME + "-" + netns;
        }

        /**
         * The pillar-node of this home, health on {@code healthPort} (the namespace's loopback). Its host
         * NQN is written first, a random UUID one: nodes of one machine would otherwise derive the same from
         * its hardware UUID, and the controller refuses a node ID two nodes report.
         */
        Workload workload(int healthPort) {
            try {
                Files.createDirectories(hostNqnFile().getParent());
                if (!Files.exists(hostNqnFile())) {
                    Files.writeString(hostNqnFile(), "nqn.2014-08.org.nvmexpress:uuid:" + UUID.randomUUID() + "\n");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Workloads.node("node-" + netns, nodeName(), healthPort, socket(), kubeletDir(), dir.resolve("node-state"),
                    hostNqnFile());
        }
    }

    /** Asks the node its ID and creates (or updates) its Node and CSINode in {@code kube}. */
    static NfsNode register(Home home, KubeletNode csi, NfsdBed.NodeNet net, KubernetesClient kube) {
        String nodeId = csi.nodeId();
        Node node = new NodeBuilder().withNewMetadata().withName(home.nodeName())
                .withLabels(Map.of("topology.pillar.csi.io/fabric", "nvme-tcp")).endMetadata()
                .withNewStatus().addNewAddress().withType("InternalIP").withAddress(net.clientAddress()).endAddress()
                .endStatus().build();
        kube.nodes().resource(node).createOr(NonDeletingOperation::update);
        Node stored = kube.nodes().withName(home.nodeName()).get();
        if (stored.getStatus() == null || stored.getStatus().getAddresses() == null || stored.getStatus().getAddresses().isEmpty()) {
            kube.nodes().resource(node).updateStatus(); // an API that keeps status apart from the object
        }
        CSINode csiNode = new CSINodeBuilder().withNewMetadata().withName(home.nodeName()).endMetadata().withNewSpec()
                .addNewDriver().withName(DRIVER).withNodeID(nodeId).withTopologyKeys(List.of("topology.pillar.csi.io/fabric"))
                .endDriver().endSpec().build();
        kube.storage().v1().csiNodes().resource(csiNode).createOr(NonDeletingOperation::update);
        return new NfsNode(home.nodeName(), nodeId, net, csi);
    }

    /** One line for the output: what was registered. */
    String describe() {
        return "Node/" + name + " (InternalIP " + net.clientAddress() + ", network namespace " + net.name()
                + ") and CSINode/" + name + " (" + DRIVER + " node ID " + nodeId + ")";
    }
}
