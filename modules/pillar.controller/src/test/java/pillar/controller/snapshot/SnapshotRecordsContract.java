package pillar.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.crd.PillarSnapshotStateSpec;
import pillar.controller.crd.PillarSnapshotStateStatus;
import pillar.controller.crd.SnapshotPhase;
import pillar.controller.volume.state.DurableRecords;

/**
 * What every {@link SnapshotRecords} adapter must do, run against the in-memory one
 * ({@link InMemorySnapshotRecordsTest}) and the fabric8 one on the mock API server
 * ({@link KubeSnapshotRecordsIT}): identity on create, compare-and-swap of the status that keeps the
 * spec, and deletion held by the snapshot's finalizer.
 */
abstract class SnapshotRecordsContract {
    /** A fresh, empty store. */
    abstract SnapshotRecords records();

    static PillarSnapshotState state(String name) {
        PillarSnapshotState state = new PillarSnapshotState();
        state.setMetadata(new ObjectMetaBuilder().withName(name).withFinalizers(PillarSnapshotState.FINALIZER).build());
        PillarSnapshotStateSpec spec = new PillarSnapshotStateSpec();
        spec.setSnapshotName("snapshot-" + name);
        spec.setSourceVolumeId("pvc-a");
        spec.setStore("fast");
        spec.setAgent("storage-1");
        spec.setBackend("tank/pillar");
        spec.setSourceCapacityBytes(1L << 30);
        state.setSpec(spec);
        return state;
    }

    private static PillarSnapshotState ready(PillarSnapshotState state, long sizeBytes) {
        PillarSnapshotStateStatus status = new PillarSnapshotStateStatus();
        status.setPhase(SnapshotPhase.Ready);
        status.setReadyToUse(true);
        status.setSizeBytes(sizeBytes);
        status.setCreationTimeSeconds(1_700_000_000L);
        state.setStatus(status);
        return state;
    }

    @Test
    void aCreateAssignsIdentityAndASecondOfThatNameConflicts() {
        SnapshotRecords records = records();
        PillarSnapshotState created = records.create(state("ps-a"));
        assertThat(created.getMetadata().getUid()).isNotBlank();
        assertThat(created.getMetadata().getResourceVersion()).isNotBlank();
        assertThat(records.get("ps-a").orElseThrow().getSpec().getSourceVolumeId()).isEqualTo("pvc-a");
        assertThatThrownBy(() -> records.create(state("ps-a"))).isInstanceOf(DurableRecords.Conflict.class);
        assertThat(records.list()).hasSize(1);
    }

    @Test
    void aStatusWriteSwapsOnTheResourceVersionAndKeepsTheSpec() {
        SnapshotRecords records = records();
        records.create(state("ps-a"));
        PillarSnapshotState stale = records.get("ps-a").orElseThrow();
        PillarSnapshotState next = ready(records.get("ps-a").orElseThrow(), 4096);
        next.getSpec().setSourceVolumeId("ignored-by-a-status-write");
        PillarSnapshotState written = records.replaceStatus(next);
        assertThat(written.getStatus().getPhase()).isEqualTo(SnapshotPhase.Ready);
        assertThat(written.getStatus().getSizeBytes()).isEqualTo(4096);
        assertThat(written.getSpec().getSourceVolumeId()).isEqualTo("pvc-a");

        assertThatThrownBy(() -> records.replaceStatus(ready(stale, 1))).isInstanceOf(DurableRecords.Conflict.class);
        assertThat(records.get("ps-a").orElseThrow().getStatus().getSizeBytes()).isEqualTo(4096);
    }

    @Test
    void aDeleteWaitsForTheFinalizerAndTheRecordGoesWithIt() {
        SnapshotRecords records = records();
        PillarSnapshotState created = records.create(state("ps-a"));
        records.delete("ps-a", created.getMetadata().getResourceVersion());
        PillarSnapshotState held = records.get("ps-a").orElseThrow();
        assertThat(held.getMetadata().getDeletionTimestamp()).isNotNull();
        assertThat(held.getMetadata().getFinalizers()).containsExactly(PillarSnapshotState.FINALIZER);

        held.getMetadata().getFinalizers().remove(PillarSnapshotState.FINALIZER);
        records.replace(held);
        assertThat(records.get("ps-a")).isEmpty();
        records.delete("ps-a", "1"); // gone: nothing to do, no conflict
    }
}
