package pillar.controller.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;
import static pillar.controller.volume.InMemoryController.GIB;
import static pillar.controller.volume.VolumeLifecycleTest.assertCode;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.Pillars;

/**
 * Exclusivity is enforced at the target, not only on the record: a single-node publication leaves the
 * agent admitting its node alone whatever an earlier deny did; an unpublish whose deny failed sends it
 * again when retried; a protocol whose target admits any host serves no single-node access mode.
 */
class TargetExclusivityTest {
    private final InMemoryController controller = new InMemoryController();

    /** An unpublish recorded, its deny never arrived: the next node's publish still leaves it alone on the export. */
    @Test
    void aSingleNodePublishLeavesTheAgentAdmittingThatNodeAlone() {
        publishedToAThenUnpublishedWithoutTheDeny(NODE_A);

        controller.publish(Requests.publish("pvc-1", NODE_B, Requests.rwo(), false));
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly(NODE_B);
    }

    /** ReadOnlyMany publications share the export: each node's allow adds it. */
    @Test
    void readOnlyManyPublicationsShareTheExport() {
        controller.create(Requests.create("pvc-1", GIB, Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"), Requests.parameters()));
        controller.publish(Requests.publish("pvc-1", NODE_A, Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"), true));
        controller.publish(Requests.publish("pvc-1", NODE_B, Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"), true));
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactlyInAnyOrder(NODE_A, NODE_B);
    }

    /** A named unpublish retried after its deny failed sends the deny again. */
    @Test
    void aNamedUnpublishRetriedAfterItsDenyFailedDeniesAgain() {
        publishedToAThenUnpublishedWithoutTheDeny(NODE_A);

        controller.unpublish(Requests.unpublish("pvc-1", NODE_A));
        assertThat(controller.agent().allowedHosts("pvc-1")).isEmpty();
    }

    /** An unpublish from every node (no node_id) retried after its deny failed finds the grant at the agent. */
    @Test
    void anUnpublishFromEveryNodeRetriedAfterItsDenyFailedDeniesAgain() {
        publishedToAThenUnpublishedWithoutTheDeny("");

        controller.unpublish(Requests.unpublish("pvc-1", ""));
        assertThat(controller.agent().allowedHosts("pvc-1")).isEmpty();
    }

    /** aclEnabled: false cannot fence: single-node modes are INVALID_ARGUMENT at create and publish, nothing written. */
    @Test
    void aProtocolWithoutAclServesNoSingleNodeAccessMode() {
        PillarProtocol open = Pillars.protocol("open", InMemoryController.HOST);
        open.getSpec().getNvmeofTcp().setAclEnabled(false);
        controller.inventory.put(open);
        var parameters = Requests.parameters(StorageClassParameters.PROTOCOL, "open");

        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.create(Requests.create("pvc-1", GIB, Requests.rwo(), parameters)));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.create(Requests.create("pvc-1", GIB,
                Requests.block(Mode.SINGLE_NODE_SINGLE_WRITER), parameters)));
        assertThat(controller.records.names()).isEmpty();
        assertThat(controller.agent().volumes()).isEmpty();

        var rox = Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4");
        controller.create(Requests.create("pvc-1", GIB, rox, parameters));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.publish(Requests.publish("pvc-1", NODE_A,
                Requests.mount(Mode.SINGLE_NODE_READER_ONLY, "ext4"), true)));
        assertThat(controller.records.get("pvc-1").orElseThrow().getStatus().getPublications()).isEmpty();
        controller.publish(Requests.publish("pvc-1", NODE_A, rox, true));
        assertThat(controller.records.get("pvc-1").orElseThrow().getStatus().getPublications()).hasSize(1);
    }

    /** Published to A (ReadWriteOnce), then an unpublish naming {@code node} ("" every node) recorded but its deny lost. */
    private void publishedToAThenUnpublishedWithoutTheDeny(String node) {
        controller.create(Requests.create("pvc-1", GIB));
        controller.publish(Requests.publish("pvc-1", NODE_A, Requests.rwo(), false));
        controller.agents.fail("DenyInitiator", Fault.BEFORE);
        assertThatThrownBy(() -> controller.unpublish(Requests.unpublish("pvc-1", node)));
        assertThat(controller.records.get("pvc-1").orElseThrow().getStatus().getPublications()).as("recorded").isEmpty();
        assertThat(controller.agent().allowedHosts("pvc-1")).as("the deny never arrived").containsExactly(NODE_A);
    }
}
