package pillar.controller.csi;

import java.util.List;
import java.util.Optional;

import pillar.api.csi.v1.ListSnapshotsRequest;
import pillar.api.csi.v1.ListSnapshotsResponse;
import pillar.controller.crd.PillarSnapshotState;
import pillar.controller.snapshot.CsiSnapshots;
import pillar.runtime.server.CsiException;

/**
 * ListSnapshots over the snapshots whose create completed, read from their records at each page, in
 * snapshot ID order, with {@link ListTokens}' tokens and their contract. The filters narrow the list:
 * a snapshot_id or source_volume_id that names nothing (a malformed one included) lists nothing. A pure function.
 */
final class SnapshotListing {
    private SnapshotListing() {
    }

    static ListSnapshotsResponse page(ListSnapshotsRequest r, List<PillarSnapshotState> ready) {
        if (r.getMaxEntries() < 0) {
            throw CsiException.invalid("max_entries must not be negative, is " + r.getMaxEntries());
        }
        Optional<String> after = ListTokens.position(r.getStartingToken());
        List<PillarSnapshotState> listed = ready.stream()
                .filter(s -> r.getSnapshotId().isEmpty() || r.getSnapshotId().equals(s.getMetadata().getName()))
                .filter(s -> r.getSourceVolumeId().isEmpty() || r.getSourceVolumeId().equals(s.getSpec().getSourceVolumeId()))
                .filter(s -> after.isEmpty() || s.getMetadata().getName().compareTo(after.get()) > 0)
                .toList();
        int count = r.getMaxEntries() == 0 ? listed.size() : Math.min(r.getMaxEntries(), listed.size());
        ListSnapshotsResponse.Builder page = ListSnapshotsResponse.newBuilder();
        listed.subList(0, count).forEach(s -> page.addEntries(ListSnapshotsResponse.Entry.newBuilder().setSnapshot(CsiSnapshots.of(s))));
        if (count > 0 && count < listed.size()) {
            page.setNextToken(ListTokens.after(listed.get(count - 1).getMetadata().getName()));
        }
        return page.build();
    }
}
