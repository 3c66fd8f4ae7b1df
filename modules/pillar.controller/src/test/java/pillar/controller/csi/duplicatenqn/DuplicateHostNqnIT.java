package pillar.controller.csi.duplicatenqn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;

import java.util.List;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;
import io.grpc.Status;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.runtime.server.Driver;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * Proves that a host NQN which two nodes report as their pillar.csi.io node ID (cloned images
 * sharing /etc/nvme/hostnqn) is never published to: FAILED_PRECONDITION naming both nodes and the
 * fix, nothing recorded and nothing allowed on the agent, Warning events on the volume's state and
 * on both Nodes; once the nodes differ, the same publish succeeds. Another driver's node IDs do
 * not count.
 */
class DuplicateHostNqnIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @BeforeEach
    void aVolume() {
        harness.csi().createVolume(Requests.create("pvc-1", GIB));
    }

    @Test
    void anNqnOfTwoNodesIsRefusedUntilEachHasItsOwn() {
        harness.client().resource(csiNode("node-a", Driver.NAME, NODE_A)).create();
        harness.client().resource(csiNode("node-b", Driver.NAME, NODE_A)).create();
        await().atMost(ControllerHarness.PATIENCE).until(() -> !events("Node", "node-b").isEmpty());

        String message = assertCode(Status.Code.FAILED_PRECONDITION,
                () -> harness.csi().controllerPublishVolume(Requests.publish("pvc-1", NODE_A, Requests.rwo(), false)));
        assertThat(message).contains(NODE_A, "nodes node-a and node-b", "its own NQN", "/etc/nvme/hostnqn");
        assertThat(harness.state("pvc-1").orElseThrow().getStatus().getPublications()).isEmpty();
        assertThat(harness.fakeAgent().allowedHosts("pvc-1")).isEmpty();
        assertThat(harness.fakeAgents().calls()).noneMatch(c -> c.startsWith("AllowInitiator"));
        assertThat(events("PillarVolumeState", "pvc-1")).singleElement()
                .satisfies(e -> assertThat(e.getType()).isEqualTo("Warning"))
                .satisfies(e -> assertThat(e.getReason()).isEqualTo("DuplicateHostNqn"))
                .satisfies(e -> assertThat(e.getMessage()).contains("node-a and node-b"));
        for (String node : List.of("node-a", "node-b")) {
            assertThat(events("Node", node)).anySatisfy(e -> {
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getReason()).isEqualTo("DuplicateHostNqn");
                assertThat(e.getInvolvedObject().getUid()).isEqualTo("uid-" + node);
                assertThat(e.getMessage()).contains(NODE_A, "node-a and node-b");
            });
        }

        // node-b gets its own NQN and pillar-node re-registers: kubelet rewrites its CSINode
        harness.client().resource(csiNode("node-b", Driver.NAME, NODE_B)).update();
        await().atMost(ControllerHarness.PATIENCE).ignoreExceptions().until(() -> harness.csi()
                .controllerPublishVolume(Requests.publish("pvc-1", NODE_A, Requests.rwo(), false)) != null);
        assertThat(harness.fakeAgent().allowedHosts("pvc-1")).containsExactly(NODE_A);
    }

    @Test
    void aUniqueNqnIsPublishedAndAnotherDriversNodeIdsDoNotCount() {
        harness.client().resource(csiNode("node-a", Driver.NAME, NODE_A)).create();
        harness.client().resource(csiNode("node-c", "other.csi.example.com", NODE_A)).create();
        harness.client().resource(csiNode("node-d", Driver.NAME, NODE_B)).create();
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.client().storage().v1().csiNodes().list().getItems().size() == 3);

        harness.csi().controllerPublishVolume(Requests.publish("pvc-1", NODE_A, Requests.rwo(), false));
        assertThat(harness.fakeAgent().allowedHosts("pvc-1")).containsExactly(NODE_A);
        assertThat(events("Node", "node-a")).isEmpty();
        assertThat(events("Node", "node-c")).isEmpty();
    }

    private List<Event> events(String kind, String name) {
        return harness.client().v1().events().inNamespace(ControllerHarness.NAMESPACE).list().getItems().stream()
                .filter(e -> kind.equals(e.getInvolvedObject().getKind()) && name.equals(e.getInvolvedObject().getName()))
                .toList();
    }

    /** A CSINode as kubelet writes it: owned by its Node, one driver with its node ID. */
    private static CSINode csiNode(String node, String driver, String nodeId) {
        return new CSINodeBuilder()
                .withNewMetadata().withName(node)
                .addNewOwnerReference().withApiVersion("v1").withKind("Node").withName(node).withUid("uid-" + node).endOwnerReference()
                .endMetadata()
                .withNewSpec().addNewDriver().withName(driver).withNodeID(nodeId).endDriver().endSpec()
                .build();
    }
}
