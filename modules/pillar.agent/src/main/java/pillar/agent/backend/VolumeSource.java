package pillar.agent.backend;

import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/** What a new volume is made from: a snapshot (a restore) or another volume (a clone), and how. */
public sealed interface VolumeSource {
    /** How the new volume relates to its source. */
    Mode mode();

    /** A restore of a snapshot of this backend. */
    record FromSnapshot(SnapshotId snapshot, Mode mode) implements VolumeSource {
    }

    /** A clone of a volume of this backend. */
    record FromVolume(VolumeId volume, Mode mode) implements VolumeSource {
    }

    /** How a restore or clone is made. */
    enum Mode {
        /** The backend's instant way: ZFS a linked clone, LVM thin a thin snapshot, LVM linear a copy. */
        DEFAULT,
        /** Shares blocks with the source (ZFS {@code zfs clone}, LVM thin a thin snapshot). */
        LINKED,
        /** Shares nothing with the source (ZFS {@code zfs send | zfs recv}, LVM a block copy). */
        INDEPENDENT
    }
}
