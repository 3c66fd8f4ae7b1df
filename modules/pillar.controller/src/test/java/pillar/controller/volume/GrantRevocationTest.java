package pillar.controller.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;
import static pillar.controller.volume.InMemoryController.GIB;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.Export;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.value.VolumeId;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.csi.Requests;
import pillar.controller.volume.publish.StaleGrants;
import pillar.controller.volume.state.Records;

/**
 * The revocation of stale grants decides each volume again under its lock, from what the agent and the
 * state hold then, never from the poll's older listing alone: a host published since that listing keeps
 * its grant, and an unpublish whose deny already landed is no stale grant (no Reconcile, no warning).
 */
class GrantRevocationTest {
    private static final AgentTarget AGENT = AgentTarget.plaintext(InMemoryController.HOST, 9500);
    private static final String NODE_C = "nqn.2014-08.org.nvmexpress:uuid:cccccccc-cccc-cccc-cccc-cccccccccccc";

    private final InMemoryController controller = new InMemoryController();

    @Test
    void aHostPublishedAfterThePollsListingKeepsItsGrantWhileTheStaleOneIsRevoked() {
        controller.create(Requests.create("pvc-r", GIB, Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"), Requests.parameters()));
        controller.publish(Requests.publish("pvc-r", NODE_A, Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"), true));
        // a grant behind the controller's back: stale
        controller.fake.allowInitiator(AGENT, AllowInitiatorRequest.newBuilder().setToken(Records.token(state("pvc-r")).toProto())
                .setVolumeId("pvc-r").setHostNqn(NODE_C).build());
        List<Export> polled = listing(); // A and C
        // node B is published between the poll's listing and its read of the states
        controller.publish(Requests.publish("pvc-r", NODE_B, Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"), true));

        audit(polled, List.of(state("pvc-r")));

        assertThat(controller.agent().allowedHosts("pvc-r")).containsExactlyInAnyOrder(NODE_A, NODE_B);
        assertThat(controller.events).filteredOn(e -> e.contains(StaleGrants.REVOKED)).singleElement()
                .satisfies(e -> assertThat(e).contains(NODE_C).doesNotContain(NODE_B));
    }

    @Test
    void anUnpublishWhoseDenyLandedAfterThePollsListingIsNoStaleGrant() {
        controller.create(Requests.create("pvc-u", GIB));
        controller.publish(Requests.publish("pvc-u", NODE_A, Requests.rwo(), false));
        List<Export> polled = listing(); // A
        controller.unpublish(Requests.unpublish("pvc-u", NODE_A));
        List<String> callsBefore = controller.fake.calls();

        audit(polled, List.of(state("pvc-u")));

        assertThat(controller.agent().allowedHosts("pvc-u")).isEmpty();
        assertThat(controller.fake.calls().subList(callsBefore.size(), controller.fake.calls().size()))
                .noneMatch(c -> c.startsWith("Reconcile"));
        assertThat(controller.events).noneMatch(e -> e.contains(StaleGrants.REVOKED));
    }

    @Test
    void aVolumeBusyWithAnotherOperationIsLeftForTheNextPoll() throws Exception {
        controller.create(Requests.create("pvc-b", GIB));
        controller.fake.allowInitiator(AGENT, AllowInitiatorRequest.newBuilder().setToken(Records.token(state("pvc-b")).toProto())
                .setVolumeId("pvc-b").setHostNqn(NODE_C).build());
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Object> other = CompletableFuture.supplyAsync(() -> controller.locks.run(VolumeId.of("pvc-b"),
                "ControllerPublishVolume", () -> {
                    holding.countDown();
                    await(release);
                    return null;
                }));
        holding.await();
        audit(listing(), List.of(state("pvc-b")));
        assertThat(controller.agent().allowedHosts("pvc-b")).containsExactly(NODE_C);
        release.countDown();
        other.get();

        audit(listing(), List.of(state("pvc-b")));
        assertThat(controller.agent().allowedHosts("pvc-b")).isEmpty();
        assertThat(controller.events).filteredOn(e -> e.contains(StaleGrants.REVOKED)).hasSize(1);
    }

    @Test
    void anExportThatDriftedInTheKernelIsReappliedAsRecordedWithAnEvent() {
        controller.create(Requests.create("pvc-d", GIB));
        controller.publish(Requests.publish("pvc-d", NODE_A, Requests.rwo(), false));
        controller.agent().drift("pvc-d", "subsystem nqn.2024-06.io.pillar-csi:pvc-d missing");

        audit(listing(), List.of(state("pvc-d")));
        assertThat(listing()).as("the first poll that finds it leaves it").singleElement()
                .satisfies(e -> assertThat(e.getDriftList()).hasSize(1));
        assertThat(controller.fake.calls()).noneMatch(c -> c.startsWith("Reconcile"));
        audit(listing(), List.of(state("pvc-d")));

        assertThat(listing()).singleElement().satisfies(e -> assertThat(e.getDriftList()).as("drift after the repair").isEmpty());
        assertThat(controller.agent().allowedHosts("pvc-d")).as("the grant, kept").containsExactly(NODE_A);
        assertThat(controller.events).filteredOn(e -> e.contains(StaleGrants.DRIFT_REPAIRED)).singleElement()
                .satisfies(e -> assertThat(e).contains("subsystem nqn.2024-06.io.pillar-csi:pvc-d missing", "re-applied"));
        assertThat(controller.events).noneMatch(e -> e.contains(StaleGrants.REVOKED));
    }

    @Test
    void aDriftGoneByTheNextPollIsNeverRepaired() {
        controller.create(Requests.create("pvc-t", GIB));
        controller.publish(Requests.publish("pvc-t", NODE_A, Requests.rwo(), false));
        int callsBefore = controller.fake.calls().size();
        controller.agent().drift("pvc-t", "host " + NODE_A + " missing"); // a change under way elsewhere
        audit(listing(), List.of(state("pvc-t")));
        controller.agent().drift("pvc-t"); // done
        audit(listing(), List.of(state("pvc-t")));
        controller.agent().drift("pvc-t", "host " + NODE_A + " missing"); // a new one: seen once again first
        audit(listing(), List.of(state("pvc-t")));
        audit(List.of(), List.of(state("pvc-t"))); // a listing without it: forgotten
        audit(listing(), List.of(state("pvc-t")));

        assertThat(controller.fake.calls().subList(callsBefore, controller.fake.calls().size()))
                .noneMatch(c -> c.startsWith("Reconcile"));
        assertThat(controller.events).noneMatch(e -> e.contains(StaleGrants.DRIFT_REPAIRED));
    }

    @Test
    void aDriftTheKernelRefusesToRepairStaysForTheNextPollWithoutAnEvent() {
        controller.create(Requests.create("pvc-s", GIB));
        controller.publish(Requests.publish("pvc-s", NODE_A, Requests.rwo(), false));
        controller.agent().stuckDrift("pvc-s", "port 1 link of nqn.2024-06.io.pillar-csi:pvc-s missing");

        audit(listing(), List.of(state("pvc-s")));
        audit(listing(), List.of(state("pvc-s")));

        assertThat(controller.fake.calls()).anyMatch(c -> c.startsWith("Reconcile"));
        assertThat(listing()).singleElement().satisfies(e -> assertThat(e.getDriftList()).hasSize(1));
        assertThat(controller.events).noneMatch(e -> e.contains(StaleGrants.DRIFT_REPAIRED));

        controller.agent().drift("pvc-s", "port 1 link of nqn.2024-06.io.pillar-csi:pvc-s missing"); // the kernel takes it now
        audit(listing(), List.of(state("pvc-s")));
        assertThat(listing()).singleElement().satisfies(e -> assertThat(e.getDriftList()).isEmpty());
    }

    private void audit(List<Export> exports, List<PillarVolumeState> states) {
        controller.volumes.grantRevocation().audit(AGENT, InMemoryController.AGENT, InMemoryController.STORE, exports, states);
    }

    private List<Export> listing() {
        return controller.fake.listExports(AGENT, ListExportsRequest.getDefaultInstance()).getExportsList();
    }

    private PillarVolumeState state(String name) {
        return controller.records.get(name).orElseThrow();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
