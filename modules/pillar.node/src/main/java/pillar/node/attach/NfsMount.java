package pillar.node.attach;

import java.nio.file.Path;

import pillar.node.mount.MountOptions;
import pillar.node.mount.NfsExport;

/**
 * What {@link NfsAttacher} attaches: an NFS export mounted at a directory (the staging path).
 *
 * @param options the per-mount flags (read-only, ...), as {@link pillar.node.mount.Mounter#mountNfs} takes them
 */
public record NfsMount(NfsExport export, Path at, MountOptions options) {
}
