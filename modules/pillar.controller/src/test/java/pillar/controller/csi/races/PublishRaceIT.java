package pillar.controller.csi.races;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.controller.crd.Publication;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;

/**
 * Two ControllerPublish calls of one ReadWriteOnce volume for two nodes at the same instant:
 * exactly one wins, on one controller (the volume is held: the other is ABORTED or, once the first
 * is recorded, FAILED_PRECONDITION) and on two replicas that both believe they lead (the
 * compare-and-swap on the state decides). The record and the agent's ACL name the winner only.
 */
class PublishRaceIT {
    private static final int ROUNDS = 6;

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();
    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Test
    void onOneControllerExactlyOneWins() throws Exception {
        race(harness.csi(), harness.csi(), "one");
    }

    @Test
    void onTwoReplicasExactlyOneWins() throws Exception {
        CsiHarness.Controller second = harness.startController("controller-b");
        race(harness.csi(), second.csi().withDeadlineAfter(60, TimeUnit.SECONDS), "two");
    }

    private void race(ControllerGrpc.ControllerBlockingStub a, ControllerGrpc.ControllerBlockingStub b, String label)
            throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String id = "pvc-" + label + "-" + round;
            harness.csi().createVolume(Requests.create(id, GIB));
            CyclicBarrier start = new CyclicBarrier(2);
            CompletableFuture<Status.Code> forA = CompletableFuture.supplyAsync(() -> publish(a, id, NODE_A, start), pool);
            CompletableFuture<Status.Code> forB = CompletableFuture.supplyAsync(() -> publish(b, id, NODE_B, start), pool);
            List<Status.Code> outcomes = new ArrayList<>(List.of(forA.get(60, TimeUnit.SECONDS), forB.get(60, TimeUnit.SECONDS)));
            assertThat(outcomes).as(id).containsOnlyOnce(Status.Code.OK);
            outcomes.remove(Status.Code.OK);
            assertThat(outcomes.getFirst()).as(id).isIn(Status.Code.FAILED_PRECONDITION, Status.Code.ABORTED);
            String winner = forA.get() == Status.Code.OK ? NODE_A : NODE_B;
            assertThat(harness.state(id).orElseThrow().getStatus().getPublications()).as(id)
                    .containsExactly(new Publication(winner, false, "SINGLE_NODE_WRITER"));
            assertThat(harness.fakeAgent().allowedHosts(id)).as(id).containsExactly(winner);
            // the loser's retry, after the winner is recorded, is refused for the RWO volume
            String loser = winner.equals(NODE_A) ? NODE_B : NODE_A;
            assertThat(publish(harness.csi(), id, loser, null)).isEqualTo(Status.Code.FAILED_PRECONDITION);
        }
    }

    private static Status.Code publish(ControllerGrpc.ControllerBlockingStub csi, String id, String node, CyclicBarrier start) {
        try {
            if (start != null) {
                start.await(30, TimeUnit.SECONDS);
            }
            csi.controllerPublishVolume(Requests.publish(id, node, Requests.rwo(), false));
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
