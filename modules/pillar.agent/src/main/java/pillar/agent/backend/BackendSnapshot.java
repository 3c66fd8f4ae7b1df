package pillar.agent.backend;

import java.time.Instant;

import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * A snapshot as it exists on a backend: the volume it was taken of, that volume's size then (the
 * smallest restore), and when the backend took it.
 */
public record BackendSnapshot(SnapshotId id, VolumeId source, ByteSize size, Instant created) {
}
