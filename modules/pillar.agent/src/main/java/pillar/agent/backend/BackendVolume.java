package pillar.agent.backend;

import java.nio.file.Path;
import java.util.Objects;

import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * A volume as it exists on a backend: its size and either the block device the NVMe-oF target exports
 * ({@code device}, {@code mountPath} null) or, for a filesystem dataset, the mounted path nfsd exports
 * ({@code mountPath}, {@code device} null). Exactly one of the two is set.
 */
public record BackendVolume(VolumeId id, ByteSize size, Path device, Path mountPath) {
    public BackendVolume {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(size, "size");
        if ((device == null) == (mountPath == null)) {
            throw new IllegalArgumentException("volume " + id + " needs exactly one of a device and a mount path");
        }
    }

    /** A block volume: its device. */
    public BackendVolume(VolumeId id, ByteSize size, Path device) {
        this(id, size, device, null);
    }

    /** A filesystem volume: the path its dataset is mounted on. */
    public static BackendVolume filesystem(VolumeId id, ByteSize size, Path mountPath) {
        return new BackendVolume(id, size, null, mountPath);
    }

    /** Whether this is a filesystem (NFS) volume rather than a block one. */
    public boolean isFilesystem() {
        return mountPath != null;
    }
}
