package pillar.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.Export;
import pillar.api.agent.v1.Volume;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;

class OrphanVolumesTest {
    @Test
    void aStateClaimsOnlyTheVolumeOfItsNameOnItsOwnAgentAndBackend() {
        List<Volume> listed = List.of(volume("pvc-a", "fast"), volume("pvc-b", "fast"), volume("pvc-c", "fast"),
                volume("pvc-d", "slow"));
        List<Export> exported = List.of(export("pvc-a", "fast"), export("pvc-b", "fast"), export("pvc-d", "slow"));
        List<PillarVolumeState> states = List.of(state("pvc-a", "storage-1", "fast"), state("pvc-b", "storage-2", "fast"),
                state("pvc-c", "storage-1", "slow"));

        OrphanVolumes orphans = OrphanVolumes.of("storage-1", "fast", listed, exported, states);

        assertThat(orphans.volumes()).containsExactly("pvc-b", "pvc-c");
        assertThat(orphans.exports()).containsExactly("pvc-b");
        assertThat(orphans.any()).isTrue();
        assertThat(orphans.message("storage-1", "fast")).isEqualTo("backend fast on agent storage-1 has 2 orphaned volumes"
                + " (pvc-b, pvc-c) and 1 orphaned export (pvc-b) that no PillarVolumeState claims; they are never deleted"
                + " automatically: inspect them and remove them by hand (README, \"Orphaned volumes\")");
    }

    @Test
    void theMessageNamesTheFirstTenOfEachKindAndCountsTheRest() {
        List<Volume> listed = java.util.stream.IntStream.rangeClosed(1, 25).mapToObj(i -> volume(String.format("pvc-%02d", i), "fast"))
                .toList();
        OrphanVolumes orphans = OrphanVolumes.of("storage-1", "fast", listed, List.of(), List.of());
        assertThat(orphans.message("storage-1", "fast")).contains("25 orphaned volumes (pvc-01, pvc-02").contains("pvc-10, and 15 more)")
                .doesNotContain("pvc-11").contains("no orphaned exports");
    }

    @Test
    void noOrphansIsSaidSo() {
        OrphanVolumes none = OrphanVolumes.of("storage-1", "fast", List.of(volume("pvc-a", "fast")), List.of(export("pvc-a", "fast")),
                List.of(state("pvc-a", "storage-1", "fast")));
        assertThat(none.any()).isFalse();
        assertThat(none.message("storage-1", "fast"))
                .isEqualTo("every volume and export of backend fast on agent storage-1 is claimed by a PillarVolumeState");
    }

    private static Volume volume(String id, String backend) {
        return Volume.newBuilder().setVolumeId(id).setBackend(backend).build();
    }

    private static Export export(String id, String backend) {
        return Export.newBuilder().setVolumeId(id).setBackend(backend).build();
    }

    private static PillarVolumeState state(String id, String agent, String backend) {
        PillarVolumeState state = new PillarVolumeState();
        state.setMetadata(new ObjectMetaBuilder().withName(id).build());
        PillarVolumeStateSpec spec = new PillarVolumeStateSpec();
        spec.setAgent(agent);
        spec.setBackend(backend);
        state.setSpec(spec);
        return state;
    }
}
