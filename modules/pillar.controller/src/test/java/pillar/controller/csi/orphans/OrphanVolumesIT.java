package pillar.controller.csi.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pillar.controller.csi.CsiHarness.GIB;

import java.util.List;
import java.util.UUID;

import io.fabric8.kubernetes.api.model.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.AddressFamily;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.FencingToken;
import pillar.controller.agent.AgentTarget;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.Reasons;
import pillar.controller.csi.CsiHarness;
import pillar.controller.csi.Requests;
import pillar.controller.reconcile.ControllerHarness;

/**
 * Volumes and exports on the agent that no PillarVolumeState claims are reported by the store's
 * condition OrphanVolumes (the first names and the counts, a Warning event) and never deleted;
 * the condition turns false once they are removed by hand. The volumes the controller made are
 * never reported.
 */
class OrphanVolumesIT {
    private static final AgentTarget AGENT = AgentTarget.plaintext(CsiHarness.FAKE_HOST, 9500);

    @RegisterExtension
    final CsiHarness harness = CsiHarness.withFakeAgent();

    @Test
    void orphansAreReportedBoundedNeverDeletedAndTheReportClearsOnceTheyAreRemovedByHand() {
        harness.csi().createVolume(Requests.create("pvc-claimed", GIB));
        Condition clean = awaitOrphans(Condition.FALSE, Reasons.NO_ORPHANS, "");
        assertThat(clean.getMessage()).contains("every volume and export of backend fast on agent " + CsiHarness.AGENT);

        for (int i = 1; i <= 12; i++) {
            orphan(String.format("pvc-orphan-%02d", i), i == 12);
        }
        // a poll may fall between two of the creations above: wait for the one that saw all of them
        Condition found = awaitOrphans(Condition.TRUE, Reasons.ORPHANS_FOUND, "1 orphaned export (");
        assertThat(found.getMessage())
                .contains("12 orphaned volumes (pvc-orphan-01, pvc-orphan-02")
                .contains("pvc-orphan-10, and 2 more)")
                .doesNotContain("pvc-orphan-11")
                .contains("1 orphaned export (pvc-orphan-12)")
                .contains("never deleted automatically")
                .doesNotContain("pvc-claimed");
        Event warning = await().atMost(ControllerHarness.PATIENCE).until(() -> storeEvents().stream()
                .filter(e -> e.getReason().equals(Reasons.ORPHANS_FOUND)).findFirst(), e -> e.isPresent()).orElseThrow();
        assertThat(warning.getType()).isEqualTo("Warning");

        // many polls later they are all still there: reported, never deleted
        long polls = listings();
        await().atMost(ControllerHarness.PATIENCE).until(() -> listings() >= polls + 3);
        assertThat(harness.fakeAgent().volumes()).hasSize(13);
        assertThat(harness.fakeAgent().exports()).containsOnlyKeys("pvc-claimed", "pvc-orphan-12");

        for (int i = 1; i <= 12; i++) {
            String id = String.format("pvc-orphan-%02d", i);
            harness.fakeAgents().deleteVolume(AGENT, DeleteVolumeRequest.newBuilder().setToken(token(id, 2)).setVolumeId(id)
                    .setBackend("fast").build());
        }
        Condition cleared = awaitOrphans(Condition.FALSE, Reasons.NO_ORPHANS, "");
        assertThat(cleared.getMessage()).contains("is claimed by a PillarVolumeState");
        assertThat(harness.fakeAgent().volumes()).containsOnlyKeys("pvc-claimed");
    }

    /** A volume on the agent that no state claims (an operator's, or one whose state was removed by hand). */
    private void orphan(String id, boolean exported) {
        harness.fakeAgents().createVolume(AGENT, CreateVolumeRequest.newBuilder().setToken(token(id, 1)).setVolumeId(id)
                .setBackend("fast").setSizeBytes(GIB).build());
        if (exported) {
            harness.fakeAgents().exportVolume(AGENT, ExportVolumeRequest.newBuilder().setToken(token(id, 1)).setVolumeId(id)
                    .setBackend("fast").setExport(ExportSpec.newBuilder().setBindAddress(CsiHarness.FAKE_HOST).setPort(4420)
                            .setAddressFamily(AddressFamily.ADDRESS_FAMILY_IPV4).setAclEnabled(true)).build());
        }
    }

    private long listings() {
        return harness.fakeAgents().calls().stream().filter(c -> c.startsWith("ListVolumes ")).count();
    }

    private static FencingToken token(String id, long generation) {
        return FencingToken.newBuilder().setLifecycleUid(UUID.nameUUIDFromBytes(id.getBytes()).toString())
                .setPublicationGeneration(generation).build();
    }

    /** The store's OrphanVolumes condition once it has this status and reason and its message contains {@code fragment}. */
    private Condition awaitOrphans(String status, String reason, String fragment) {
        return await().atMost(ControllerHarness.PATIENCE).until(() -> List.copyOf(harness.client().resources(PillarStore.class)
                        .withName(CsiHarness.STORE).get().getStatus().getConditions()).stream()
                        .filter(c -> c.getType().equals(PillarStore.ORPHAN_VOLUMES)).findFirst(),
                c -> c.isPresent() && c.get().getStatus().equals(status) && c.get().getReason().equals(reason)
                        && c.get().getMessage().contains(fragment)).orElseThrow();
    }

    private List<Event> storeEvents() {
        return harness.client().v1().events().inNamespace(ControllerHarness.NAMESPACE).list().getItems().stream()
                .filter(e -> "PillarStore".equals(e.getInvolvedObject().getKind())
                        && CsiHarness.STORE.equals(e.getInvolvedObject().getName())).toList();
    }
}
