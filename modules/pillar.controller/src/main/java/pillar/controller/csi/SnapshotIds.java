package pillar.controller.csi;

import java.util.Optional;

import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.runtime.server.CsiException;

/**
 * The snapshot ID of a CreateSnapshot name, as {@link VolumeIds} makes volume IDs: external-snapshotter's
 * names ({@code snapshot-<uid>}) are kept as they are, any other becomes {@code ps-} and the hex of its
 * SHA-256 (the record keeps the name, so a shared ID is found and refused). A call's snapshot_id that
 * cannot be one of ours names no snapshot.
 */
final class SnapshotIds {
    static final String HASHED_PREFIX = "ps-";

    private SnapshotIds() {
    }

    static SnapshotId of(String name) {
        return SnapshotId.of(VolumeIds.idOf(name, HASHED_PREFIX));
    }

    /** A call's snapshot_id where a missing snapshot is success: INVALID_ARGUMENT when missing, empty when malformed. */
    static Optional<SnapshotId> ifAny(String snapshotId) {
        if (snapshotId.isEmpty()) {
            throw CsiException.invalid("snapshot_id is required");
        }
        try {
            return Optional.of(SnapshotId.of(snapshotId));
        } catch (InvalidValueException malformed) {
            return Optional.empty();
        }
    }
}
