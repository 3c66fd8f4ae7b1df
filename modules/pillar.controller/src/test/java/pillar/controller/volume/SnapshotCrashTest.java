package pillar.controller.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.volume.InMemoryController.GIB;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import pillar.controller.agent.FakeAgent;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.csi.Requests;
import pillar.controller.volume.state.InMemoryRecords;

/**
 * A crash at every step of a snapshot's life, in memory: snapshot a volume, restore it, clone the
 * volume, delete the snapshot before its restore and the source before its clone. One fault is
 * struck at one step (an agent call that never arrives or whose answer is lost; a snapshot record
 * write that fails or whose answer is lost), then a fresh controller (nothing kept but the records
 * and the agent) and the CO's retry. Every run must leave what the run without a fault leaves, and
 * after the deletes neither a record nor anything on the agent.
 */
class SnapshotCrashTest {
    private record Step(String name, List<String> rpcs, Consumer<InMemoryController> call) {
    }

    private static final List<Step> LIFE = List.of(
            new Step("CreateVolume source", List.of("CreateVolume", "ExportVolume"),
                    c -> c.create(Requests.create("pvc-src", GIB))),
            new Step("CreateSnapshot", List.of("CreateSnapshot"), c -> c.snapshot(Requests.snapshot("snapshot-1", "pvc-src"))),
            new Step("CreateVolume restore", List.of("CreateVolume", "ExportVolume"),
                    c -> c.create(Requests.restore("pvc-restored", 2 * GIB, "snapshot-1", Requests.parameters()))),
            new Step("CreateVolume clone", List.of("CreateVolume", "ExportVolume"),
                    c -> c.create(Requests.clone("pvc-clone", 0, "pvc-src", Requests.parameters()))));
    private static final List<Step> ENDS = List.of(
            new Step("DeleteSnapshot", List.of("DeleteSnapshot"), c -> c.deleteSnapshot(Requests.deleteSnapshot("snapshot-1"))),
            new Step("DeleteVolume source", List.of("DeleteVolume"), c -> c.delete(Requests.delete("pvc-src"))),
            new Step("DeleteVolume restore", List.of("DeleteVolume"), c -> c.delete(Requests.delete("pvc-restored"))),
            new Step("DeleteVolume clone", List.of("DeleteVolume"), c -> c.delete(Requests.delete("pvc-clone"))));

    /** What a life leaves before its deletes: the agent's volumes, what each was made from, its snapshots. */
    private record Outcome(Map<String, FakeAgent.Volume> volumes, Map<String, String> contents, List<String> snapshots,
                           List<String> records) {
    }

    @Test
    void aFailedOrLostAgentCallAtEveryStepIsRecoveredByTheRetry() {
        Outcome expected = live(new InMemoryController(), -1, null, null, 0);
        List<Step> all = new ArrayList<>(LIFE);
        all.addAll(ENDS);
        int runs = 0;
        for (int step = 0; step < all.size(); step++) {
            for (String rpc : all.get(step).rpcs()) {
                for (Fault fault : Fault.values()) {
                    assertThat(live(new InMemoryController(), step, rpc, fault, 1))
                            .as(all.get(step).name() + ": " + rpc + " " + fault).isEqualTo(expected);
                    runs++;
                }
            }
        }
        assertThat(runs).isEqualTo(22);
    }

    @Test
    void aFailedOrLostSnapshotRecordWriteIsRecoveredByTheRetry() {
        InMemoryController counted = new InMemoryController();
        int[] writes = {0};
        counted.snapshotRecords.faults(new InMemoryRecords.Faults() {
            @Override
            public void before(InMemoryRecords.Write write) {
                writes[0]++;
            }
        });
        Outcome expected = live(counted, -1, null, null, 0);
        // create, Ready; Deleting, the finalizer released, the delete
        assertThat(writes[0]).as("snapshot record writes of a snapshot's life").isEqualTo(5);
        for (int strike = 1; strike <= writes[0]; strike++) {
            for (boolean lost : new boolean[] {false, true}) {
                InMemoryController controller = new InMemoryController();
                controller.snapshotRecords.faults(new InMemoryRecords.Strike(strike, lost));
                assertThat(live(controller, -1, null, null, 1)).as("write " + strike + (lost ? ", its answer lost" : ", failed"))
                        .isEqualTo(expected);
            }
        }
    }

    /**
     * Runs the life on {@code controller}, with {@code fault} struck at {@code rpc} when step
     * {@code strike} runs (none for -1) and each failed call retried once on a fresh controller;
     * asserts that {@code crashes} calls failed and that the deletes leave nothing.
     */
    private static Outcome live(InMemoryController controller, int strike, String rpc, Fault fault, int crashes) {
        List<String> failed = new ArrayList<>();
        int index = 0;
        for (Step step : LIFE) {
            if (index++ == strike) {
                controller.agents.fail(rpc, fault);
            }
            attempt(controller, step, failed);
        }
        Outcome outcome = new Outcome(controller.agent().volumes(), contents(controller),
                List.copyOf(controller.agent().snapshots().keySet()), controller.snapshotRecords.names());
        for (Step step : ENDS) {
            if (index++ == strike) {
                controller.agents.fail(rpc, fault);
            }
            attempt(controller, step, failed);
        }
        assertThat(failed).as("calls that failed").hasSize(crashes);
        assertThat(controller.records.names()).as("volume records after the deletes").isEmpty();
        assertThat(controller.snapshotRecords.names()).as("snapshot records after the deletes").isEmpty();
        assertThat(controller.agent().volumes()).as("volumes after the deletes").isEmpty();
        assertThat(controller.agent().snapshots()).as("snapshots after the deletes").isEmpty();
        return outcome;
    }

    private static Map<String, String> contents(InMemoryController controller) {
        Map<String, String> contents = new java.util.TreeMap<>();
        controller.agent().volumes().keySet().forEach(v -> controller.agent().content(v).ifPresent(c -> contents.put(v, c)));
        return contents;
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
}
