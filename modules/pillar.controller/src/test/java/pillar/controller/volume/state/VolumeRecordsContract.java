package pillar.controller.volume.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;
import pillar.controller.crd.PillarVolumeState;
import pillar.controller.crd.PillarVolumeStateSpec;
import pillar.controller.crd.PillarVolumeStateStatus;
import pillar.controller.crd.VolumePhase;

/**
 * What every {@link VolumeRecords} adapter must do, run against each: the in-memory one
 * ({@link InMemoryVolumeRecordsTest}) and the fabric8 one on the mock API server
 * ({@code KubeVolumeRecordsIT}). Compare-and-swap on the resourceVersion, status and spec written
 * apart, and deletion held by finalizers.
 */
abstract class VolumeRecordsContract {
    /** A fresh, empty store. */
    abstract VolumeRecords records();

    /**
     * Whether a delete naming a stale resourceVersion is refused by the store under test (the API
     * server's precondition; fabric8's mock server ignores it, so its adapter is not held to it there).
     */
    boolean refusesStaleDeletes() {
        return true;
    }

    static PillarVolumeState state(String name, boolean finalizer) {
        PillarVolumeState state = new PillarVolumeState();
        ObjectMetaBuilder meta = new ObjectMetaBuilder().withName(name);
        if (finalizer) {
            meta.withFinalizers(PillarVolumeState.FINALIZER);
        }
        state.setMetadata(meta.build());
        PillarVolumeStateSpec spec = new PillarVolumeStateSpec();
        spec.setVolumeName(name);
        spec.setStore("fast");
        spec.setAgent("storage-1");
        spec.setBackend("tank/pillar");
        spec.setProtocol("tcp");
        spec.setCapacityBytes(1L << 30);
        spec.setVolumeMode(PillarVolumeStateSpec.VolumeMode.Block);
        state.setSpec(spec);
        return state;
    }

    private static PillarVolumeState withPhase(PillarVolumeState state, VolumePhase phase, long generation) {
        PillarVolumeStateStatus status = new PillarVolumeStateStatus();
        status.setPhase(phase);
        status.setPublicationGeneration(generation);
        state.setStatus(status);
        return state;
    }

    @Test
    void aCreateAssignsIdentityAndASecondOfThatNameConflicts() {
        VolumeRecords records = records();
        PillarVolumeState created = records.create(state("pvc-a", true));
        assertThat(created.getMetadata().getUid()).isNotEmpty();
        assertThat(created.getMetadata().getResourceVersion()).isNotEmpty();
        assertThat(created.getMetadata().getCreationTimestamp()).isNotEmpty();
        assertThat(records.get("pvc-a")).get().satisfies(s -> {
            assertThat(s.getMetadata().getUid()).isEqualTo(created.getMetadata().getUid());
            assertThat(s.getSpec().getBackend()).isEqualTo("tank/pillar");
        });
        assertThatThrownBy(() -> records.create(state("pvc-a", true))).isInstanceOf(VolumeRecords.Conflict.class);
        assertThat(records.get("pvc-b")).isEmpty();
        records.create(state("pvc-b", false));
        assertThat(records.list()).extracting(s -> s.getMetadata().getName()).containsExactlyInAnyOrder("pvc-a", "pvc-b");
    }

    @Test
    void aStatusWriteSwapsOnTheResourceVersionAndKeepsTheSpec() {
        VolumeRecords records = records();
        PillarVolumeState created = records.create(state("pvc-a", true));
        PillarVolumeState stale = records.get("pvc-a").orElseThrow();

        PillarVolumeState next = withPhase(records.get("pvc-a").orElseThrow(), VolumePhase.Creating, 1);
        next.getSpec().setBackend("ignored/by-a-status-write");
        PillarVolumeState written = records.replaceStatus(next);
        assertThat(written.getMetadata().getResourceVersion()).isNotEqualTo(created.getMetadata().getResourceVersion());
        assertThat(written.getStatus().getPhase()).isEqualTo(VolumePhase.Creating);
        assertThat(written.getSpec().getBackend()).isEqualTo("tank/pillar");

        assertThatThrownBy(() -> records.replaceStatus(withPhase(stale, VolumePhase.Deleting, 1)))
                .isInstanceOf(VolumeRecords.Conflict.class);
        PillarVolumeState now = records.get("pvc-a").orElseThrow();
        assertThat(now.getStatus().getPhase()).isEqualTo(VolumePhase.Creating);
        assertThat(now.getMetadata().getResourceVersion()).isEqualTo(written.getMetadata().getResourceVersion());
    }

    @Test
    void aSpecWriteSwapsOnTheResourceVersionAndKeepsTheStatus() {
        VolumeRecords records = records();
        records.create(state("pvc-a", true));
        PillarVolumeState withStatus = records.replaceStatus(withPhase(records.get("pvc-a").orElseThrow(), VolumePhase.Exported, 3));
        PillarVolumeState stale = records.get("pvc-a").orElseThrow();

        PillarVolumeState next = records.get("pvc-a").orElseThrow();
        next.getSpec().setFsType("xfs");
        next.setStatus(null);
        PillarVolumeState written = records.replace(next).orElseThrow();
        assertThat(written.getSpec().getFsType()).isEqualTo("xfs");
        assertThat(written.getStatus().getPhase()).isEqualTo(VolumePhase.Exported);
        assertThat(written.getMetadata().getResourceVersion()).isNotEqualTo(withStatus.getMetadata().getResourceVersion());

        stale.getSpec().setFsType("ext4");
        assertThatThrownBy(() -> records.replace(stale)).isInstanceOf(VolumeRecords.Conflict.class);
        assertThat(records.get("pvc-a").orElseThrow().getSpec().getFsType()).isEqualTo("xfs");
    }

    @Test
    void aDeleteSwapsOnTheResourceVersionAndOneAlreadyGoneIsLeftSo() {
        VolumeRecords records = records();
        PillarVolumeState created = records.create(state("pvc-a", false));
        records.replaceStatus(withPhase(records.get("pvc-a").orElseThrow(), VolumePhase.Pending, 0));
        if (refusesStaleDeletes()) {
            assertThatThrownBy(() -> records.delete("pvc-a", created.getMetadata().getResourceVersion()))
                    .isInstanceOf(VolumeRecords.Conflict.class);
            assertThat(records.get("pvc-a")).isPresent();
        }

        records.delete("pvc-a", records.get("pvc-a").orElseThrow().getMetadata().getResourceVersion());
        assertThat(records.get("pvc-a")).isEmpty();
        records.delete("pvc-a", "1"); // gone: nothing to do, no conflict
        assertThat(records.list()).isEmpty();
    }

    @Test
    void aDeleteWaitsForTheFinalizerAndTheRecordGoesWithIt() {
        VolumeRecords records = records();
        PillarVolumeState created = records.create(state("pvc-a", true));
        records.delete("pvc-a", created.getMetadata().getResourceVersion());
        PillarVolumeState held = records.get("pvc-a").orElseThrow();
        assertThat(held.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(held.getMetadata().getFinalizers()).containsExactly(PillarVolumeState.FINALIZER);

        held.getMetadata().getFinalizers().remove(PillarVolumeState.FINALIZER);
        records.replace(held); // the answer may or may not carry the record; either way it goes
        assertThat(records.get("pvc-a")).isEmpty();
    }
}
