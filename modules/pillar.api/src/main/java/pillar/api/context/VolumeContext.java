package pillar.api.context;

/**
 * The keys of the CSI {@code volume_context} that CreateVolume returns; the CO passes it to every
 * node call but NodeUnstageVolume. Settings frozen on the volume at creation.
 */
public final class VolumeContext {
    /** Extra mkfs options from an allow-list the node enforces, space separated (e.g. "-m 0"). */
    public static final String MKFS_OPTIONS = "mkfsOptions";
    /** The backend kind the volume lives on ("zfs", "lvm", "lvm-thin"), for display. */
    public static final String BACKEND = "backend";

    private VolumeContext() {
    }
}
