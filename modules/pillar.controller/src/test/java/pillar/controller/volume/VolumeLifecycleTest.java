package pillar.controller.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;
import static pillar.controller.volume.InMemoryController.GIB;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.api.csi.v1.ControllerPublishVolumeResponse;
import pillar.api.csi.v1.CreateVolumeResponse;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.Publication;
import pillar.controller.crd.VolumePhase;
import pillar.controller.csi.Requests;
import pillar.controller.volume.publish.SharedHostNqns;

/**
 * The volume state machine in memory, without Kubernetes: create, publish, expand, unpublish and
 * delete drive the agent and record each step on the volume's record, every changing agent call
 * with a new publication generation; a repeated call changes nothing; the refusals are decided on
 * the record and the inventory.
 */
class VolumeLifecycleTest {
    private final InMemoryController controller = new InMemoryController();

    @Test
    void aVolumeLivesThroughCreatePublishExpandUnpublishAndDelete() {
        CreateVolumeResponse created = controller.create(Requests.create("pvc-1", GIB));
        assertThat(created.getVolume().getVolumeId()).isEqualTo("pvc-1");
        assertThat(created.getVolume().getCapacityBytes()).isEqualTo(GIB);
        PillarVolumeState exported = record("pvc-1");
        assertThat(exported.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(exported.getMetadata().getFinalizers()).containsExactly(PillarVolumeState.FINALIZER);
        assertThat(controller.agent().volumes()).containsOnlyKeys("pvc-1");
        assertThat(controller.agent().exports()).containsOnlyKeys("pvc-1");
        long afterCreate = exported.getStatus().getPublicationGeneration();
        assertThat(afterCreate).isEqualTo(2); // Creating, then Exporting: one generation per changing agent step

        ControllerPublishVolumeResponse published = controller.publish(
                Requests.publish("pvc-1", NODE_A, Requests.rwo(), false));
        assertThat(published.getPublishContextMap()).containsEntry(PublishContext.NQN, exported.getStatus().getSubsystemNqn())
                .containsEntry(PublishContext.TRADDR, InMemoryController.HOST);
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly(NODE_A);
        assertThat(record("pvc-1").getStatus().getPublications()).extracting(Publication::getNode).containsExactly(NODE_A);
        assertThat(record("pvc-1").getStatus().getPublicationGeneration()).isEqualTo(afterCreate + 1);

        // the same publication again changes nothing at the agent; a second writer node is refused
        controller.publish( Requests.publish("pvc-1", NODE_A, Requests.rwo(), false));
        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.publish(
                Requests.publish("pvc-1", NODE_B, Requests.rwo(), false)));
        assertThat(controller.agent().allowedHosts("pvc-1")).containsExactly(NODE_A);

        var grown = controller.expand( ControllerExpandVolumeRequest.newBuilder()
                .setVolumeId("pvc-1").setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(2 * GIB)).build());
        assertThat(grown.getCapacityBytes()).isEqualTo(2 * GIB);
        assertThat(grown.getNodeExpansionRequired()).isTrue();
        assertThat(record("pvc-1").getStatus().getCapacityBytes()).isEqualTo(2 * GIB);
        assertThat(controller.agent().volumes().get("pvc-1").size()).isEqualTo(2 * GIB);

        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.delete(Requests.delete("pvc-1")));
        controller.unpublish( Requests.unpublish("pvc-1", NODE_A));
        assertThat(controller.agent().allowedHosts("pvc-1")).isEmpty();
        assertThat(record("pvc-1").getStatus().getPublications()).isEmpty();

        controller.delete(Requests.delete("pvc-1"));
        assertThat(controller.records.names()).isEmpty();
        assertThat(controller.agent().volumes()).isEmpty();
        assertThat(controller.agent().exports()).isEmpty();
        controller.delete(Requests.delete("pvc-1")); // gone: success
    }

    @Test
    void aRepeatedCreateAnswersTheSameVolumeAndADifferentOneUnderItsNameIsRefused() {
        controller.create(Requests.create("pvc-1", GIB));
        String lifecycle = record("pvc-1").getMetadata().getUid();
        int calls = controller.fake.calls().size();

        controller.create(Requests.create("pvc-1", GIB));
        assertThat(record("pvc-1").getMetadata().getUid()).isEqualTo(lifecycle);
        assertThat(controller.fake.calls()).hasSize(calls); // Exported: nothing left to do at the agent
        assertCode(Status.Code.ALREADY_EXISTS, () -> controller.create(Requests.create("pvc-1", 2 * GIB)));
        assertThat(controller.agent().volumes()).containsOnlyKeys("pvc-1");
    }

    @Test
    void anAgentStillCopyingACloneKeepsTheVolumeCreatingAndAnswersAbortedWithItsProgressUntilTheRetryFindsItWhole() {
        String copying = "copying vg0/pvc-src to vg0/pvc-1 in the background: 40GiB of 100GiB (40%) at 480.0 MiB/s; retry";
        controller.agents.busy("CreateVolume", copying).busy("CreateVolume", copying);

        for (int retry = 0; retry < 2; retry++) {
            assertThatThrownBy(() -> controller.create(Requests.create("pvc-1", GIB))).isInstanceOfSatisfying(
                    StatusRuntimeException.class, e -> {
                        assertThat(e.getStatus().getCode()).as("CSI: operation pending for volume; the CO retries").isEqualTo(
                                Status.Code.ABORTED);
                        assertThat(e.getStatus().getDescription()).contains(copying);
                    });
            assertThat(record("pvc-1").getStatus().getPhase()).as("not rolled back").isEqualTo(VolumePhase.Creating);
        }
        String lifecycle = record("pvc-1").getMetadata().getUid();

        controller.create(Requests.create("pvc-1", GIB));
        assertThat(record("pvc-1").getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(record("pvc-1").getMetadata().getUid()).as("the same lifecycle throughout").isEqualTo(lifecycle);
    }

    @Test
    void aStoreMissingFromTheInventoryIsRefusedBeforeAnythingIsWritten() {
        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.create(Requests.create("pvc-1", GIB,
                Requests.rwo(), Requests.parameters(pillar.controller.crd.StorageClassParameters.STORE, "missing"))));
        assertThat(controller.records.names()).isEmpty();
        assertThat(controller.agent().volumes()).isEmpty();
    }

    @Test
    void aHostNqnTwoNodesReportIsNeverPublishedTo() {
        controller.create(Requests.create("pvc-1", GIB));
        controller.inventory.reportHostNqn("node-1", NODE_A).reportHostNqn("node-2", NODE_A);

        assertCode(Status.Code.FAILED_PRECONDITION, () -> controller.publish(
                Requests.publish("pvc-1", NODE_A, Requests.rwo(), false)));
        assertThat(controller.agent().allowedHosts("pvc-1")).isEmpty();
        assertThat(record("pvc-1").getStatus().getPublications()).isEmpty();
        assertThat(controller.events).singleElement().asString().startsWith("Warning " + SharedHostNqns.REASON)
                .contains("node-1 and node-2").endsWith("about pvc-1");
    }

    private PillarVolumeState record(String name) {
        return controller.records.get(name).orElseThrow();
    }

    static void assertCode(Status.Code code, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(code));
    }
}
