package pillar.controller.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.volume.InMemoryController.GIB;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.ControllerExpandVolumeRequest;
import pillar.controller.agent.FakeAgent;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.csi.Requests;
import pillar.controller.volume.state.InMemoryRecords;
import pillar.controller.volume.state.InMemoryVolumeRecords;

/**
 * A crash after every step of a volume's life, in memory: create, publish, expand, unpublish,
 * delete, with one fault struck at one step (an agent call that never arrives or whose answer is
 * lost; a record write that fails or whose answer is lost), then a fresh controller (nothing kept
 * but the records and the agent) and the CO's retry of the failed call. Every run must end as the
 * run without a fault does: the same record (but for generations, which retries add to), the
 * agent's volume and export the same, and after delete neither a record nor anything on the agent.
 */
class VolumeCrashTest {
    private static final KubernetesSerialization JSON = new KubernetesSerialization();
    private static final String VOLUME = "pvc-crash";

    private record Step(String name, Consumer<InMemoryController> call) {
    }

    private static final List<Step> LIFE = List.of(
            new Step("CreateVolume", c -> c.create(Requests.create(VOLUME, GIB))),
            new Step("ControllerPublishVolume", c -> c.publish(
                    Requests.publish(VOLUME, NODE_A, Requests.rwo(), false))),
            new Step("ControllerExpandVolume", c -> c.expand( ControllerExpandVolumeRequest
                    .newBuilder().setVolumeId(VOLUME).setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(2 * GIB)).build())),
            new Step("ControllerUnpublishVolume", c -> c.unpublish(
                    Requests.unpublish(VOLUME, NODE_A))));
    private static final Step DELETE = new Step("DeleteVolume", c -> c.delete(Requests.delete(VOLUME)));

    /** What a run leaves before the delete: the record as it matters and the agent's volume and export. */
    private record Outcome(String record, Map<String, FakeAgent.Volume> volumes, Map<String, FakeAgent.Export> exports) {
    }

    @Test
    void aFailedOrLostAgentCallAtEveryStepIsRecoveredByTheRetry() {
        Outcome expected = live(new InMemoryController(), 0);
        List<String> rpcs = List.of("CreateVolume", "ExportVolume", "AllowInitiator", "ExpandVolume", "DenyInitiator",
                "DeleteVolume");
        for (String rpc : rpcs) {
            for (Fault fault : Fault.values()) {
                InMemoryController controller = new InMemoryController();
                controller.agents.fail(rpc, fault);
                assertThat(live(controller, 1)).as(rpc + " " + fault).isEqualTo(expected);
            }
        }
    }

    @Test
    void aFailedOrLostRecordWriteAtEveryStepIsRecoveredByTheRetry() {
        InMemoryController counted = new InMemoryController();
        int[] writes = {0};
        counted.records.faults(new InMemoryVolumeRecords.Faults() {
            @Override
            public void before(InMemoryVolumeRecords.Write write) {
                writes[0]++;
            }
        });
        Outcome expected = live(counted, 0);
        assertThat(writes[0]).as("record writes of a volume's life").isEqualTo(11);
        for (int strike = 1; strike <= writes[0]; strike++) {
            for (boolean lost : new boolean[] {false, true}) {
                InMemoryController controller = new InMemoryController();
                controller.records.faults(new InMemoryRecords.Strike(strike, lost));
                assertThat(live(controller, 1)).as("write " + strike + (lost ? ", its answer lost" : ", failed")).isEqualTo(expected);
            }
        }
    }

    /**
     * Runs the volume's life on {@code controller}, each failed call retried once on a fresh one;
     * asserts that {@code crashes} calls failed and that the delete leaves nothing. Returns what the
     * life left before its delete.
     */
    private static Outcome live(InMemoryController controller, int crashes) {
        List<String> failed = new ArrayList<>();
        for (Step step : LIFE) {
            attempt(controller, step, failed);
        }
        PillarVolumeState record = controller.records.get(VOLUME).orElseThrow();
        Outcome outcome = new Outcome(essence(record), controller.agent().volumes(), controller.agent().exports());
        attempt(controller, DELETE, failed);
        assertThat(failed).as("calls that failed").hasSize(crashes);
        assertThat(controller.records.names()).as("records after delete").isEmpty();
        assertThat(controller.agent().volumes()).as("volumes after delete").isEmpty();
        assertThat(controller.agent().exports()).as("exports after delete").isEmpty();
        return outcome;
    }

    private static void attempt(InMemoryController controller, Step step, List<String> failed) {
        try {
            step.call().accept(controller);
        } catch (StatusRuntimeException e) {
            failed.add(step.name() + ": " + e.getStatus());
            controller.restart();
            step.call().accept(controller);
        }
    }

    /** The record without what retries change: resourceVersion, generations, timestamps. */
    private static String essence(PillarVolumeState record) {
        PillarVolumeState copy = JSON.clone(record);
        copy.getMetadata().setResourceVersion(null);
        copy.getMetadata().setUid(null);
        copy.getMetadata().setCreationTimestamp(null);
        copy.getStatus().setPublicationGeneration(0L);
        return JSON.asJson(copy.getSpec()) + " " + JSON.asJson(copy.getStatus()) + " " + copy.getMetadata().getFinalizers();
    }
}
