package pillar.controller.volume;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.controller.csi.CsiAssertions.assertCode;
import static pillar.controller.volume.InMemoryController.GIB;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.CopyMode;
import pillar.api.csi.v1.CreateSnapshotResponse;
import pillar.api.csi.v1.CreateVolumeResponse;
import pillar.api.csi.v1.ListSnapshotsRequest;
import pillar.api.csi.v1.ListSnapshotsResponse;
import pillar.api.csi.v1.Snapshot;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.crd.SnapshotPhase;
import pillar.controller.crd.StorageClassParameters;
import pillar.controller.crd.VolumeContentSource;
import pillar.controller.csi.Requests;

/**
 * Snapshots, restores and clones through the CSI service, in memory: each snapshot has its record
 * (written before the agent is asked, removed after it destroyed the snapshot) and every agent call
 * for it carries its own lifecycle; a restore or clone records its source and hands it to the agent.
 */
class SnapshotLifecycleTest {
    private final InMemoryController controller = new InMemoryController();

    @Test
    void aSnapshotIsTakenRestoredListedAndDeleted() {
        controller.create(Requests.create("pvc-src", GIB));
        CreateSnapshotResponse taken = controller.snapshot(Requests.snapshot("snapshot-1", "pvc-src"));
        Snapshot snapshot = taken.getSnapshot();
        assertThat(snapshot.getSnapshotId()).isEqualTo("snapshot-1");
        assertThat(snapshot.getSourceVolumeId()).isEqualTo("pvc-src");
        assertThat(snapshot.getSizeBytes()).isEqualTo(GIB);
        assertThat(snapshot.getReadyToUse()).isTrue();
        assertThat(snapshot.getCreationTime().getSeconds()).isPositive();
        PillarSnapshotState record = controller.snapshotRecords.get("snapshot-1").orElseThrow();
        assertThat(record.getStatus().getPhase()).isEqualTo(SnapshotPhase.Ready);
        assertThat(record.getMetadata().getFinalizers()).containsExactly(PillarSnapshotState.FINALIZER);
        assertThat(record.getSpec().getBackend()).isEqualTo(InMemoryController.STORE);
        assertThat(controller.agent().snapshots()).containsOnlyKeys("snapshot-1");
        // fenced by the snapshot's own lifecycle, not its source's
        assertThat(controller.agent().mark("pvc-src").orElseThrow().lifecycle().value())
                .isNotEqualTo(record.getMetadata().getUid());

        // the same request again is the same snapshot; the name of another source is ALREADY_EXISTS
        assertThat(controller.snapshot(Requests.snapshot("snapshot-1", "pvc-src"))).isEqualTo(taken);
        controller.create(Requests.create("pvc-other", GIB));
        assertCode(Status.Code.ALREADY_EXISTS, () -> controller.snapshot(Requests.snapshot("snapshot-1", "pvc-other")));

        // a restore without a size is the snapshot's size; with a larger one it is grown
        CreateVolumeResponse restored = controller.create(Requests.restore("pvc-restored", 0, "snapshot-1", Requests.parameters()));
        assertThat(restored.getVolume().getCapacityBytes()).isEqualTo(GIB);
        assertThat(restored.getVolume().getContentSource().getSnapshot().getSnapshotId()).isEqualTo("snapshot-1");
        assertThat(controller.agent().content("pvc-restored")).contains("snapshot:snapshot-1");
        assertThat(controller.records.get("pvc-restored").orElseThrow().getSpec().getContentSource())
                .isEqualTo(VolumeContentSource.ofSnapshot("snapshot-1", null));
        CreateVolumeResponse grown = controller.create(Requests.restore("pvc-grown", 2 * GIB, "snapshot-1", Requests.parameters()));
        assertThat(grown.getVolume().getCapacityBytes()).isEqualTo(2 * GIB);
        assertThat(controller.agent().volumes().get("pvc-grown").size()).isEqualTo(2 * GIB);
        // the same restore again is the same volume; the same name from another source is ALREADY_EXISTS
        assertThat(controller.create(Requests.restore("pvc-restored", 0, "snapshot-1", Requests.parameters()))).isEqualTo(restored);
        assertCode(Status.Code.ALREADY_EXISTS, () -> controller.create(Requests.clone("pvc-restored", 0, "pvc-src",
                Requests.parameters())));
        assertCode(Status.Code.ALREADY_EXISTS, () -> controller.create(Requests.create("pvc-restored", GIB)));

        ListSnapshotsResponse listed = controller.listSnapshots(ListSnapshotsRequest.getDefaultInstance());
        assertThat(listed.getEntriesList()).extracting(e -> e.getSnapshot()).containsExactly(snapshot);

        // deleting the snapshot before the volume restored from it: gone for the CO, the restore stays
        controller.deleteSnapshot(Requests.deleteSnapshot("snapshot-1"));
        assertThat(controller.snapshotRecords.names()).isEmpty();
        assertThat(controller.agent().snapshots()).isEmpty();
        assertThat(controller.agent().volumes()).containsKey("pvc-restored");
        assertThat(controller.listSnapshots(ListSnapshotsRequest.getDefaultInstance()).getEntriesList()).isEmpty();
        controller.deleteSnapshot(Requests.deleteSnapshot("snapshot-1")); // deleted already: success
        assertCode(Status.Code.NOT_FOUND, () -> controller.create(Requests.restore("pvc-late", 0, "snapshot-1",
                Requests.parameters())));
        assertThat(controller.records.get("pvc-late")).isEmpty();
    }

    @Test
    void aCloneIsMadeFromAVolumeWithTheClassCopyMode() {
        controller.zfsStore("tank");
        Map<String, String> zfs = Map.of(StorageClassParameters.STORE, "tank", StorageClassParameters.PROTOCOL,
                InMemoryController.PROTOCOL);
        controller.create(Requests.create("pvc-src", 2 * GIB, Requests.rwo(), zfs));
        CreateVolumeResponse clone = controller.create(Requests.clone("pvc-clone", 0, "pvc-src",
                with(zfs, StorageClassParameters.CLONE_MODE, "independent")));
        assertThat(clone.getVolume().getCapacityBytes()).isEqualTo(2 * GIB);
        assertThat(clone.getVolume().getContentSource().getVolume().getVolumeId()).isEqualTo("pvc-src");
        assertThat(controller.agent().content("pvc-clone")).contains("volume:pvc-src");
        assertThat(controller.agent().copyMode("pvc-clone")).contains(CopyMode.COPY_MODE_INDEPENDENT);
        controller.create(Requests.clone("pvc-linked", 0, "pvc-src", with(zfs, StorageClassParameters.CLONE_MODE, "linked")));
        assertThat(controller.agent().copyMode("pvc-linked")).contains(CopyMode.COPY_MODE_LINKED);
        controller.create(Requests.clone("pvc-default", 0, "pvc-src", zfs));
        assertThat(controller.agent().copyMode("pvc-default")).contains(CopyMode.COPY_MODE_UNSPECIFIED);

        // the source deleted first: the clones are volumes of their own
        controller.delete(Requests.delete("pvc-src"));
        assertThat(controller.agent().volumes()).containsOnlyKeys("pvc-clone", "pvc-linked", "pvc-default");
        for (String volume : List.of("pvc-clone", "pvc-linked", "pvc-default")) {
            controller.delete(Requests.delete(volume));
        }
        assertThat(controller.records.names()).isEmpty();
        assertThat(controller.agent().volumes()).isEmpty();
    }

    @Test
    void aCopyModeTheStoreCannotKeepIsRefusedAndChangesNothing() {
        controller.create(Requests.create("pvc-thin", GIB));
        controller.linearStore("slow");
        Map<String, String> linear = Map.of(StorageClassParameters.STORE, "slow", StorageClassParameters.PROTOCOL,
                InMemoryController.PROTOCOL);
        controller.create(Requests.create("pvc-linear", GIB, Requests.rwo(), linear));
        int volumes = controller.records.names().size();

        assertThat(assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.create(Requests.clone("pvc-x", 0, "pvc-thin",
                Requests.parameters(StorageClassParameters.CLONE_MODE, "independent"))))).contains("LVM thin pool");
        assertThat(assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.create(Requests.clone("pvc-y", 0, "pvc-linear",
                with(linear, StorageClassParameters.CLONE_MODE, "linked"))))).contains("LVM linear");
        assertThat(controller.records.names()).hasSize(volumes);

        // a linear clone by default is a full copy
        controller.create(Requests.clone("pvc-copy", 0, "pvc-linear", linear));
        assertThat(controller.agent().content("pvc-copy")).contains("volume:pvc-linear");
    }

    private static Map<String, String> with(Map<String, String> parameters, String key, String value) {
        Map<String, String> all = new java.util.TreeMap<>(parameters);
        all.put(key, value);
        return all;
    }

    @Test
    void badSourcesAndSizesAreRefusedAndChangeNothing() {
        controller.create(Requests.create("pvc-src", 2 * GIB));
        controller.snapshot(Requests.snapshot("snapshot-1", "pvc-src"));
        int volumes = controller.records.names().size();

        assertCode(Status.Code.OUT_OF_RANGE, () -> controller.create(Requests.restore("pvc-small", GIB, "snapshot-1",
                Requests.parameters())));
        assertCode(Status.Code.OUT_OF_RANGE, () -> controller.create(Requests.clone("pvc-small", GIB, "pvc-src",
                Requests.parameters())));
        assertCode(Status.Code.NOT_FOUND, () -> controller.create(Requests.restore("pvc-x", 0, "snapshot-none", Requests.parameters())));
        assertCode(Status.Code.NOT_FOUND, () -> controller.create(Requests.restore("pvc-x", 0, "Not_An_Id", Requests.parameters())));
        assertCode(Status.Code.NOT_FOUND, () -> controller.create(Requests.clone("pvc-x", 0, "pvc-none", Requests.parameters())));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.create(Requests.clone("pvc-x", 0, "pvc-src",
                Requests.parameters(StorageClassParameters.CLONE_MODE, "deep"))));
        controller.linearStore("slow");
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.create(Requests.clone("pvc-x", 0, "pvc-src",
                java.util.Map.of(StorageClassParameters.STORE, "slow", StorageClassParameters.PROTOCOL, InMemoryController.PROTOCOL))));
        assertThat(controller.records.names()).hasSize(volumes);

        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.snapshot(Requests.snapshot("", "pvc-src")));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.snapshot(Requests.snapshot("snapshot-2", "")));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.snapshot(Requests.snapshot("snapshot-2", "pvc-src").toBuilder()
                .putParameters("pillar.csi.io/store", "fast").build()));
        assertCode(Status.Code.NOT_FOUND, () -> controller.snapshot(Requests.snapshot("snapshot-2", "pvc-none")));
        assertCode(Status.Code.NOT_FOUND, () -> controller.snapshot(Requests.snapshot("snapshot-2", "Not_An_Id")));
        assertThat(controller.snapshotRecords.names()).containsExactly("snapshot-1");
        assertThat(controller.agent().snapshots()).containsOnlyKeys("snapshot-1");
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.deleteSnapshot(Requests.deleteSnapshot("")));
        controller.deleteSnapshot(Requests.deleteSnapshot("Not_An_Id")); // names no snapshot: deleted already
    }

    @Test
    void aStoreThatCannotTakeSnapshotsSaysSoAndKeepsNoRecord() {
        controller.linearStore("slow");
        controller.create(Requests.create("pvc-linear", GIB, Requests.rwo(),
                java.util.Map.of(StorageClassParameters.STORE, "slow", StorageClassParameters.PROTOCOL, InMemoryController.PROTOCOL)));
        String message = assertCode(Status.Code.FAILED_PRECONDITION,
                () -> controller.snapshot(Requests.snapshot("snapshot-linear", "pvc-linear")));
        assertThat(message).contains("SnapshotsUnsupported").contains("LVM linear");
        assertThat(controller.snapshotRecords.names()).isEmpty();
        assertThat(controller.agent().snapshots()).isEmpty();
    }

    @Test
    void snapshotsAreListedInPagesAndFiltered() {
        controller.create(Requests.create("pvc-a", GIB));
        controller.create(Requests.create("pvc-b", GIB));
        for (int i = 1; i <= 5; i++) {
            controller.snapshot(Requests.snapshot("snapshot-" + i, i % 2 == 0 ? "pvc-b" : "pvc-a"));
        }
        List<String> seen = new ArrayList<>();
        String token = "";
        int pages = 0;
        do {
            ListSnapshotsResponse page = controller.listSnapshots(ListSnapshotsRequest.newBuilder().setMaxEntries(2)
                    .setStartingToken(token).build());
            page.getEntriesList().forEach(e -> seen.add(e.getSnapshot().getSnapshotId()));
            token = page.getNextToken();
            pages++;
        } while (!token.isEmpty());
        assertThat(seen).containsExactly("snapshot-1", "snapshot-2", "snapshot-3", "snapshot-4", "snapshot-5");
        assertThat(pages).isEqualTo(3);

        assertThat(ids(ListSnapshotsRequest.newBuilder().setSourceVolumeId("pvc-b").build()))
                .containsExactly("snapshot-2", "snapshot-4");
        assertThat(ids(ListSnapshotsRequest.newBuilder().setSnapshotId("snapshot-3").build())).containsExactly("snapshot-3");
        assertThat(ids(ListSnapshotsRequest.newBuilder().setSnapshotId("snapshot-3").setSourceVolumeId("pvc-b").build())).isEmpty();
        assertThat(ids(ListSnapshotsRequest.newBuilder().setSnapshotId("snapshot-none").build())).isEmpty();
        assertThat(ids(ListSnapshotsRequest.newBuilder().setSourceVolumeId("Not_An_Id").build())).isEmpty();
        assertCode(Status.Code.ABORTED, () -> controller.listSnapshots(ListSnapshotsRequest.newBuilder()
                .setStartingToken("invalid-token").build()));
        assertCode(Status.Code.INVALID_ARGUMENT, () -> controller.listSnapshots(ListSnapshotsRequest.newBuilder()
                .setMaxEntries(-1).build()));
    }

    private List<String> ids(ListSnapshotsRequest request) {
        return controller.listSnapshots(request).getEntriesList().stream().map(e -> e.getSnapshot().getSnapshotId()).toList();
    }
}
