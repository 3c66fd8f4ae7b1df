package pillar.node.stage;

import java.nio.file.Path;
import java.util.List;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;

/**
 * One NodePublishVolume that succeeded: where, read-only or not, and the capability it was asked
 * with (a repeat with other arguments at the same target is ALREADY_EXISTS).
 */
public record Publication(Path target, boolean readOnly, Mode accessMode, List<String> mountFlags) {
    public Publication {
        mountFlags = List.copyOf(mountFlags);
        StageRecord.checkPath("publication target", target);
    }
}
