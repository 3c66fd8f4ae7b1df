package pillar.agent.nfs;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

import pillar.api.value.VolumeId;

/**
 * The {@code fsid=} of a volume's export: a name-based UUID of the volume ID, so that an export made
 * again (after a restart, a reboot, a wipe) carries the same file handles and clients' mounts keep working
 * (docs/nfs.md fact 3). Never 0 (the NFSv4 root).
 */
public record NfsFsid(UUID uuid) {
    private static final String NAMESPACE = "pillar-csi/nfs/fsid/";

    public static NfsFsid of(VolumeId volume) {
        return new NfsFsid(UUID.nameUUIDFromBytes((NAMESPACE + volume.value()).getBytes(StandardCharsets.UTF_8)));
    }

    /** As exportfs takes and lists it. */
    public String text() {
        return uuid.toString();
    }
}
