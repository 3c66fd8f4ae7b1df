package pillar.controller.csi.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.GetCapacityRequest;
import pillar.api.csi.v1.ValidateVolumeCapabilitiesRequest;
import pillar.controller.agent.FaultInjectingAgentClient;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.Publication;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * Two replicas and a failover, with whatever agent the harness has. Replica A leads; B stands by
 * and answers UNAVAILABLE to every call that changes a volume (reads it serves). A records a
 * publication for node A and calls the agent, but the call is held on its way; A is cut off the
 * API server, loses its lease, and B takes over. The CO moves the volume to node B through B. Then
 * A's call arrives late: the agent refuses it (its generation is older than B's) and nothing
 * changes: node B alone is allowed, as the record says.
 */
public final class FailoverScenarios {
    public static final String[] ELECTION = {"--controller.leader-election.enabled=true", "--controller.leader-election.lease-duration=8s",
        "--controller.leader-election.renew-deadline=6s", "--controller.leader-election.retry-period=300ms"};

    private FailoverScenarios() {
    }

    /**
     * @param allowedHosts the hosts the agent allows on a volume, read from the agent itself
     * @param size         the volume size to create
     */
    public static void run(CsiHarness harness, Function<String, List<String>> allowedHosts, long size) throws Exception {
        CsiHarness.Controller a = harness.startController("replica-a", true, ELECTION);
        await().atMost(ControllerHarness.PATIENCE).until(() -> a.workload().leading());
        CsiHarness.Controller b = harness.startController("replica-b", true, ELECTION);
        harness.awaitStoreReady();
        assertThat(b.workload().leading()).isFalse();
        assertCode(Status.Code.UNAVAILABLE, () -> b.stub().createVolume(Requests.create("pvc-f", size)));
        assertThat(harness.states()).isEmpty();

        a.stub().createVolume(Requests.create("pvc-f", size));
        assertThat(b.stub().controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesCount()).isPositive();
        assertThat(b.stub().validateVolumeCapabilities(ValidateVolumeCapabilitiesRequest.newBuilder().setVolumeId("pvc-f")
                .addVolumeCapabilities(Requests.rwo()).build()).hasConfirmed()).isTrue();
        assertThat(b.stub().getCapacity(GetCapacityRequest.newBuilder().putAllParameters(Requests.parameters()).build())
                .getAvailableCapacity()).isPositive();
        assertCode(Status.Code.UNAVAILABLE, () -> b.stub().controllerPublishVolume(Requests.publish("pvc-f", NODE_B,
                Requests.rwo(), false)));

        FaultInjectingAgentClient.Hold late = harness.agents.hold("AllowInitiator");
        // its own thread: a blocking call must never sit in the common pool, which fabric8's client needs
        ExecutorService caller = Executors.newSingleThreadExecutor();
        CompletableFuture<Status.Code> publishedByA = CompletableFuture.supplyAsync(() -> {
            try {
                a.stub().controllerPublishVolume(Requests.publish("pvc-f", NODE_A, Requests.rwo(), false));
                return Status.Code.OK;
            } catch (StatusRuntimeException e) {
                return e.getStatus().getCode();
            }
        }, caller);
        caller.shutdown();
        assertThat(late.arrived()).as("A's AllowInitiator reached the hold; A's publish ended with %s",
                publishedByA.getNow(null)).isTrue();
        long generationOfA = harness.state("pvc-f").orElseThrow().getStatus().getPublicationGeneration();

        a.ownClient().orElseThrow().close(); // A is cut off the API server: it cannot renew its lease
        await().atMost(ControllerHarness.PATIENCE).until(() -> b.workload().leading());
        await().atMost(ControllerHarness.PATIENCE).until(() -> !a.workload().leading());

        b.stub().controllerUnpublishVolume(Requests.unpublish("pvc-f", NODE_A));
        b.stub().controllerPublishVolume(Requests.publish("pvc-f", NODE_B, Requests.rwo(), false));
        PillarVolumeState before = harness.state("pvc-f").orElseThrow();
        assertThat(before.getStatus().getPublications()).containsExactly(new Publication(NODE_B, false, "SINGLE_NODE_WRITER"));
        assertThat(before.getStatus().getPublicationGeneration()).isGreaterThan(generationOfA);
        assertThat(allowedHosts.apply("pvc-f")).containsExactly(NODE_B);

        late.release();
        assertThat(publishedByA.get(60, TimeUnit.SECONDS)).isEqualTo(Status.Code.FAILED_PRECONDITION);
        PillarVolumeState after = harness.state("pvc-f").orElseThrow();
        assertThat(after.getStatus().getPublications()).isEqualTo(before.getStatus().getPublications());
        assertThat(after.getStatus().getPublicationGeneration()).isEqualTo(before.getStatus().getPublicationGeneration());
        assertThat(after.getMetadata().getResourceVersion()).isEqualTo(before.getMetadata().getResourceVersion());
        assertThat(allowedHosts.apply("pvc-f")).containsExactly(NODE_B);
    }
}
