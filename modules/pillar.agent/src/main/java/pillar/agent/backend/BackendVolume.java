package pillar.agent.backend;

import java.nio.file.Path;

import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/** A volume as it exists on a backend: its size and the block device the target exports. */
public record BackendVolume(VolumeId id, ByteSize size, Path device) {
}
