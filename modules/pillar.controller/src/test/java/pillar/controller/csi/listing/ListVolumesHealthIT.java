package pillar.controller.csi.listing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiHarness.GIB;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.BackendKind;
import pillar.api.csi.v1.ControllerGetVolumeRequest;
import pillar.api.csi.v1.ListVolumesRequest;
import pillar.api.csi.v1.ListVolumesResponse;
import pillar.api.csi.v1.VolumeCondition;
import pillar.controller.agent.FakeAgent;
import pillar.controller.crd.Conditions;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * ListVolumes asks each agent for its volumes' health in one GetVolumesHealth call per page, never
 * GetVolumeHealth per volume, and lists the conditions ControllerGetVolume (one GetVolumeHealth) reports;
 * an agent of before GetVolumesHealth (UNIMPLEMENTED) is asked per volume, an agent that cannot be
 * reached makes each of its volumes abnormal, and an entry the agent refuses is abnormal as the single
 * call's refusal made it, as before the batch. Two fake agents, volumes interleaved.
 */
class ListVolumesHealthIT {
    private static final String SECOND_HOST = "192.0.2.11";

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();
    private FakeAgent second;

    @BeforeEach
    void elevenVolumesOnTwoAgents() {
        second = harness.fakeAgents().agent(SECOND_HOST, 9500).backend("slow", BackendKind.BACKEND_KIND_LVM_THIN, "vg1", "pool1")
                .capacity("slow", 100 * GIB, 100 * GIB);
        harness.client().resource(Pillars.agentAt("storage-2", SECOND_HOST, 9500)).create();
        harness.client().resource(Pillars.lvmStore("slow", "storage-2", "slow", "vg1", "pool1")).create();
        harness.client().resource(Pillars.protocol("tcp-2", SECOND_HOST)).create();
        await().atMost(ControllerHarness.PATIENCE).until(() -> Optional.ofNullable(harness.client().resources(PillarStore.class)
                .withName("slow").get()).filter(s -> s.getStatus() != null)
                .map(s -> Conditions.isTrue(s.getStatus().getConditions(), PillarStore.POOL_DISCOVERED)).orElse(false));
        for (int i = 0; i < 11; i++) {
            // even on storage-1, odd on storage-2: every page holds volumes of both
            harness.csi().createVolume(i % 2 == 0 ? Requests.create(name(i), GIB) : Requests.create(name(i), GIB, Requests.rwo(),
                    Requests.parameters(StorageClassParameters.STORE, "slow", StorageClassParameters.PROTOCOL, "tcp-2")));
        }
    }

    @Test
    void eachPageAsksEachAgentOnceForAllItsVolumesAndListsWhatControllerGetVolumeReports() {
        harness.fakeAgent().loseVolume(name(4));
        second.loseVolume(name(7));
        int before = harness.fakeAgents().calls().size();

        ListVolumesResponse whole = list(0, "");
        assertThat(newCalls(before)).containsExactlyInAnyOrder("GetVolumesHealth 192.0.2.10:9500 6", "GetVolumesHealth 192.0.2.11:9500 5");
        assertSameAsGetVolume(whole, 4, 7);

        String token = "";
        int pages = 0;
        do {
            before = harness.fakeAgents().calls().size();
            ListVolumesResponse page = list(4, token);
            assertThat(newCalls(before)).as("page " + pages).hasSize(2).allMatch(c -> c.startsWith("GetVolumesHealth "));
            token = page.getNextToken();
            pages++;
        } while (!token.isEmpty());
        assertThat(pages).isEqualTo(3);
    }

    @Test
    void anAgentOfBeforeTheBatchIsAskedPerVolumeWithTheSameConditions() {
        second.withoutVolumesHealth();
        second.loseVolume(name(7));
        int before = harness.fakeAgents().calls().size();

        ListVolumesResponse whole = list(0, "");

        List<String> calls = newCalls(before);
        assertThat(calls).filteredOn(c -> c.startsWith("GetVolumesHealth ")).containsExactlyInAnyOrder(
                "GetVolumesHealth 192.0.2.10:9500 6", "GetVolumesHealth 192.0.2.11:9500 5");
        assertThat(calls).filteredOn(c -> c.startsWith("GetVolumeHealth ")).as("storage-2's five, one call each")
                .hasSize(5).allMatch(c -> c.startsWith("GetVolumeHealth 192.0.2.11:9500 "));
        assertSameAsGetVolume(whole, 7);
    }

    @Test
    void anAgentThatCannotBeReachedMakesEachOfItsVolumesAbnormalAndTheOthersAreRead() {
        second.down();
        int before = harness.fakeAgents().calls().size();

        ListVolumesResponse whole = list(0, "");

        assertThat(newCalls(before)).hasSize(2).allMatch(c -> c.startsWith("GetVolumesHealth "));
        for (int i = 0; i < 11; i++) {
            VolumeCondition condition = whole.getEntries(i).getStatus().getVolumeCondition();
            assertThat(condition.getAbnormal()).as(name(i)).isEqualTo(i % 2 == 1);
            if (i % 2 == 1) {
                assertThat(condition.getMessage()).contains("agent storage-2 cannot be reached (", "UNAVAILABLE", "AgentConnected");
            }
        }
    }

    @Test
    void anEntryTheAgentRefusesIsAbnormalAsControllerGetVolumeReportsIt() {
        second.forgetBackend("slow");

        ListVolumesResponse whole = list(0, "");

        assertSameAsGetVolume(whole, 1, 3, 5, 7, 9);
        assertThat(whole.getEntries(1).getStatus().getVolumeCondition().getMessage())
                .contains("agent storage-2 cannot be reached (GetVolumeHealth on agent ", "INVALID_ARGUMENT: backend: 'slow' is not configured");
    }

    /** Each entry's condition is ControllerGetVolume's; exactly the {@code abnormal} ones are abnormal. */
    private void assertSameAsGetVolume(ListVolumesResponse listed, int... abnormal) {
        assertThat(listed.getEntriesList()).hasSize(11);
        List<Integer> expected = new ArrayList<>();
        for (int i : abnormal) {
            expected.add(i);
        }
        for (int i = 0; i < 11; i++) {
            ListVolumesResponse.Entry entry = listed.getEntries(i);
            assertThat(entry.getVolume().getVolumeId()).isEqualTo(name(i));
            assertThat(entry.getStatus().getVolumeCondition().getAbnormal()).as(name(i)).isEqualTo(expected.contains(i));
            assertThat(entry.getStatus().getVolumeCondition()).isEqualTo(harness.csi().controllerGetVolume(
                    ControllerGetVolumeRequest.newBuilder().setVolumeId(name(i)).build()).getStatus().getVolumeCondition());
        }
    }

    private List<String> newCalls(int before) {
        List<String> calls = harness.fakeAgents().calls();
        return calls.subList(before, calls.size()).stream().filter(c -> c.startsWith("GetVolume")).toList();
    }

    private ListVolumesResponse list(int max, String token) {
        return harness.csi().listVolumes(ListVolumesRequest.newBuilder().setMaxEntries(max).setStartingToken(token).build());
    }

    private static String name(int i) {
        return String.format("pvc-%02d", i);
    }
}
