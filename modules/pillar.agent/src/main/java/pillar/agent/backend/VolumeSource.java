package pillar.agent.backend;

import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/** What a new volume is made from: a snapshot (a restore) or another volume (a clone), and how. */
public sealed interface VolumeSource {
    /** How the new volume relates to its source. */
    Mode mode();

    /**
     * What was asked for, as both families record it on the new volume:
     * {@code <snapshot|volume>/<id>/<linked|independent>/<bytes>}.
     */
    default String request(boolean linked, ByteSize size) {
        String what = switch (this) {
            case FromSnapshot s -> "snapshot/" + s.snapshot().value();
            case FromVolume v -> "volume/" + v.volume().value();
        };
        return what + "/" + (linked ? "linked" : "independent") + "/" + size.bytes();
    }

    /** The NOT_FOUND of this source, missing below {@code where} (a parent dataset, a volume group). */
    default BackendException missing(String where) {
        return new BackendException(BackendException.Kind.NOT_FOUND, switch (this) {
            case FromSnapshot s -> "snapshot " + s.snapshot() + " does not exist below " + where;
            case FromVolume v -> "volume " + v.volume() + " does not exist below " + where;
        });
    }

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
