package pillar.controller.csi.listing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.csi.CsiHarness.GIB;
import static pillar.controller.csi.Requests.NODE_A;
import static pillar.controller.csi.Requests.NODE_B;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.ListVolumesRequest;
import pillar.api.csi.v1.ListVolumesResponse;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCondition;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.controller.agent.FaultInjectingAgentClient.Fault;
import pillar.controller.crd.VolumePhase;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * ListVolumes over the real CSI socket, on the mock API server with the stateful fake agent: what
 * an entry holds, which states are listed, max_entries and the page tokens across deletions,
 * additions and a restart, and the codes of bad requests.
 */
class ListVolumesIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void anEntryIsTheVolumeAsCreateVolumeReturnedItAndTheNodesItIsPublishedTo() {
        assertThat(list(0, "").getEntriesList()).isEmpty();
        Volume created = harness.csi().createVolume(Requests.create("pvc-1", GIB)).getVolume();

        ListVolumesResponse.Entry entry = list(0, "").getEntries(0);
        assertThat(entry.getVolume()).isEqualTo(created);
        assertThat(entry.getStatus().getPublishedNodeIdsList()).isEmpty();
        assertThat(entry.getStatus().getVolumeCondition()).as("the condition, required with VOLUME_CONDITION")
                .isEqualTo(VolumeCondition.newBuilder().setAbnormal(false).build());

        harness.csi().createVolume(Requests.create("pvc-ro", GIB, Requests.mount(Mode.MULTI_NODE_READER_ONLY, "ext4"),
                Requests.parameters()));
        harness.csi().controllerPublishVolume(Requests.publish("pvc-ro", NODE_A, Requests.mount(Mode.MULTI_NODE_READER_ONLY,
                "ext4"), true));
        harness.csi().controllerPublishVolume(Requests.publish("pvc-ro", NODE_B, Requests.mount(Mode.MULTI_NODE_READER_ONLY,
                "ext4"), true));
        assertThat(entryOf("pvc-ro").getStatus().getPublishedNodeIdsList()).containsExactlyInAnyOrder(NODE_A, NODE_B);

        harness.csi().controllerUnpublishVolume(Requests.unpublish("pvc-ro", NODE_A));
        assertThat(entryOf("pvc-ro").getStatus().getPublishedNodeIdsList()).containsExactly(NODE_B);
    }

    @Test
    void aVolumeIsListedOnceItsCreateCompletedAndNotOnceItsDeleteAnswered() {
        harness.csi().createVolume(Requests.create("pvc-done", GIB));
        harness.agents.fail("ExportVolume", Fault.BEFORE);
        assertCode(Status.Code.UNAVAILABLE, () -> harness.csi().createVolume(Requests.create("pvc-half", GIB)));
        assertThat(harness.state("pvc-half").orElseThrow().getStatus().getPhase()).isEqualTo(VolumePhase.Exporting);

        assertThat(ids(list(0, ""))).containsExactly("pvc-done");

        harness.csi().createVolume(Requests.create("pvc-half", GIB));
        assertThat(ids(list(0, ""))).containsExactly("pvc-done", "pvc-half");

        harness.csi().deleteVolume(Requests.delete("pvc-done"));
        assertThat(ids(list(0, ""))).containsExactly("pvc-half");

        harness.agents.fail("DeleteVolume", Fault.BEFORE);
        assertCode(Status.Code.UNAVAILABLE, () -> harness.csi().deleteVolume(Requests.delete("pvc-half")));
        assertThat(harness.state("pvc-half").orElseThrow().getStatus().getPhase()).isEqualTo(VolumePhase.Deleting);
        assertThat(list(0, "").getEntriesList()).as("a volume whose delete began is not listed").isEmpty();
    }

    @Test
    void maxEntriesPagesInVolumeIdOrderWithATokenOnlyWhenMoreFollow() {
        for (String name : List.of("pvc-c", "pvc-a", "pvc-e", "pvc-b", "pvc-d")) {
            harness.csi().createVolume(Requests.create(name, GIB));
        }
        assertThat(ids(list(0, ""))).containsExactly("pvc-a", "pvc-b", "pvc-c", "pvc-d", "pvc-e");
        assertThat(list(0, "").getNextToken()).isEmpty();
        assertThat(list(5, "").getNextToken()).as("exactly the last page").isEmpty();
        assertThat(list(9, "").getEntriesCount()).isEqualTo(5);

        ListVolumesResponse first = list(2, "");
        assertThat(ids(first)).containsExactly("pvc-a", "pvc-b");
        ListVolumesResponse second = list(2, first.getNextToken());
        assertThat(ids(second)).containsExactly("pvc-c", "pvc-d");
        ListVolumesResponse last = list(2, second.getNextToken());
        assertThat(ids(last)).containsExactly("pvc-e");
        assertThat(last.getNextToken()).isEmpty();
        assertThat(ids(list(0, first.getNextToken()))).as("0 is no limit, from a token too")
                .containsExactly("pvc-c", "pvc-d", "pvc-e");
    }

    /** Mirrors csi-sanity "pagination should detect volumes added between pages and accept tokens when the last volume from a page is deleted". */
    @Test
    void aTokenStaysValidWhenItsPageIsDeletedAndPagesSeeVolumesAddedAfterThem() {
        for (String name : List.of("pvc-a", "pvc-b", "pvc-c", "pvc-d")) {
            harness.csi().createVolume(Requests.create(name, GIB));
        }
        ListVolumesResponse first = list(2, "");
        assertThat(ids(first)).containsExactly("pvc-a", "pvc-b");

        harness.csi().deleteVolume(Requests.delete("pvc-a"));
        harness.csi().deleteVolume(Requests.delete("pvc-b"));
        harness.csi().deleteVolume(Requests.delete("pvc-c"));
        harness.csi().createVolume(Requests.create("pvc-aa", GIB)); // sorts into the page already read
        harness.csi().createVolume(Requests.create("pvc-z", GIB));

        ListVolumesResponse rest = list(0, first.getNextToken());
        assertThat(ids(rest)).as("deleted ones absent, the one added after the position present, no duplicate")
                .containsExactly("pvc-d", "pvc-z");
        assertThat(ids(list(0, ""))).containsExactly("pvc-aa", "pvc-d", "pvc-z");
    }

    @Test
    void aTokenOfOneControllerIsValidAtTheNextAfterARestart() {
        for (String name : List.of("pvc-a", "pvc-b", "pvc-c")) {
            harness.csi().createVolume(Requests.create(name, GIB));
        }
        String token = list(1, "").getNextToken();

        CsiHarness.Controller next = harness.restart();
        ListVolumesResponse rest = next.stub().listVolumes(ListVolumesRequest.newBuilder().setStartingToken(token).build());
        assertThat(ids(rest)).containsExactly("pvc-b", "pvc-c");
    }

    @Test
    void aListingReadsEachAgentOnceHoweverManyOfItsVolumesItLists() {
        for (int i = 0; i < 20; i++) {
            harness.csi().createVolume(Requests.create(String.format("pvc-%02d", i), GIB));
        }
        // the reconciles that follow the creates read the PillarAgent too: wait until they are done
        await().atMost(ControllerHarness.PATIENCE).pollInterval(Duration.ofMillis(500)).until(() -> agentReads().isEmpty());

        assertThat(list(0, "").getEntriesCount()).isEqualTo(20);
        assertThat(agentReads()).as("one read of the PillarAgent for 20 of its volumes (give or take a reconcile)")
                .hasSizeBetween(1, 2);
    }

    private List<String> agentReads() {
        return harness.apiRequests().stream().filter(r -> r.startsWith("GET ") && r.contains("/pillaragents/")).toList();
    }

    /** Mirrors csi-sanity "should fail when an invalid starting_token is passed". */
    @Test
    void aTokenItNeverHandedOutIsAbortedAndANegativeMaxEntriesInvalid() {
        harness.csi().createVolume(Requests.create("pvc-a", GIB));
        for (String token : List.of("invalid-token", "after:", "after:PVC-A", "after:pvc-a/../x", "pvc-a")) {
            assertCode(Status.Code.ABORTED, () -> list(0, token));
        }
        assertCode(Status.Code.INVALID_ARGUMENT, () -> list(-1, ""));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> list(-1, "invalid-token"));
        assertThat(ids(list(0, ""))).containsExactly("pvc-a");
        assertThat(harness.states()).hasSize(1);
    }

    private ListVolumesResponse.Entry entryOf(String id) {
        return list(0, "").getEntriesList().stream().filter(e -> e.getVolume().getVolumeId().equals(id)).findFirst()
                .orElseThrow();
    }

    private ListVolumesResponse list(int max, String token) {
        ControllerGrpc.ControllerBlockingStub csi = harness.csi();
        return csi.listVolumes(ListVolumesRequest.newBuilder().setMaxEntries(max).setStartingToken(token).build());
    }

    private static List<String> ids(ListVolumesResponse page) {
        List<String> ids = new ArrayList<>();
        page.getEntriesList().forEach(e -> ids.add(e.getVolume().getVolumeId()));
        return ids;
    }
}
