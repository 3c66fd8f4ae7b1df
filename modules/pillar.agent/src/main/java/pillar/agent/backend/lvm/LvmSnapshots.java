package pillar.agent.backend.lvm;

import java.util.List;
import java.util.Optional;

import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BlockCopy;
import pillar.agent.backend.VolumeSource;
import pillar.agent.backend.lvm.LvmReport.Lv;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * The snapshot side of a thin {@link LvmBackend}: which LVs are this installation's snapshots, and
 * the tags of snapshots and of the volumes made from a source.
 * <ul>
 *   <li>A CSI snapshot is the thin LV {@code <vg>/snap.<snapshot-id>} in the backend's pool (LVM reserves
 *       names starting "snapshot"), tagged {@value #SNAPSHOT_TAG}, the installation tag and
 *       {@value #SOURCE_TAG}{@code <volume-id>}; never {@value LvmBackend#TAG}. Its name has a '.',
 *       which no volume ID has, so it is never found, listed nor adopted as a volume, whatever tags it
 *       carries; and a volume (its name a volume ID) is never taken for a snapshot.</li>
 *   <li>A restore or clone is a thin snapshot named after its volume, tagged as a new volume is plus
 *       {@value #CONTENT_TAG}{@code <source>/<id>/linked/<bytes>} (the request, as ZFS records it), so a
 *       retry of the same request is recognised and any other is a conflict.</li>
 *   <li>A clone on a linear backend is a block copy ({@link BlockCopy}): tagged {@value #COPYING_TAG}{@code <request>}
 *       while it is copied, with its checkpoint {@value #COPIED_TAG}{@code <bytes>}, and {@value #CONTENT_TAG}{@code <request>}
 *       (mode {@code independent}) alone once it is whole; its source carries {@value #CLONING_TAG}{@code <clone>} meanwhile.</li>
 * </ul>
 * Tags of ours an LV carries beyond these (should {@code lvcreate -s} copy the origin's) are
 * {@link #stray} and taken off.
 */
final class LvmSnapshots {
    /** The prefix of a snapshot's LV name; the snapshot ID follows. */
    static final String PREFIX = "snap.";
    /** The tag on every snapshot LV this driver takes; distinct from the volumes' tag. */
    static final String SNAPSHOT_TAG = "pillar-csi.snapshot";
    /** The prefix of the tag naming the volume a snapshot was taken of (it may be deleted since). */
    static final String SOURCE_TAG = "pillar-csi.source:";
    /** The prefix of the tag recording what a volume was made from and the size asked for. */
    static final String CONTENT_TAG = "pillar-csi.content:";
    /**
     * The prefix of the tag of a linear copy not finished yet (the request follows, as in {@link #CONTENT_TAG}):
     * replaced by the content tag in one lvchange once the copy is on stable storage.
     */
    static final String COPYING_TAG = "pillar-csi.copying:";
    /**
     * The prefix of the checkpoint tag of a linear copy not finished yet: the bytes from its start that are
     * copied and on stable storage follow. At most one; taken off with the copying tag.
     */
    static final String COPIED_TAG = "pillar-csi.copied:";
    /**
     * The prefix of the tag on the source of a linear copy not finished yet, the clone's volume ID after it:
     * it holds the source against delete and expand across an agent restart; taken off once the copy is whole.
     */
    static final String CLONING_TAG = "pillar-csi.cloning:";

    private final String pool;
    private final String installationTag;

    /**
     * @param pool            the thin pool the backend's snapshots are in
     * @param installationTag the tag of the installation they belong to
     */
    LvmSnapshots(String pool, String installationTag) {
        this.pool = pool;
        this.installationTag = installationTag;
    }

    /** The LV name of a snapshot: {@code snap.<id>}, at most 68 characters of [a-z0-9.-] (LVM allows 127). */
    static String name(SnapshotId id) {
        return PREFIX + id.value();
    }

    /** Whether an LV name is a snapshot's (never a volume's: volume IDs have no '.'). */
    static boolean isSnapshotName(String lv) {
        return lv.startsWith(PREFIX);
    }

    /** The tags a new snapshot of {@code source} carries. */
    List<String> tags(VolumeId source) {
        return List.of(SNAPSHOT_TAG, installationTag, SOURCE_TAG + source.value());
    }

    /** The tag recording a request for a volume from {@code source} of {@code rounded} bytes. */
    static String contentTag(VolumeSource source, ByteSize rounded) {
        return CONTENT_TAG + request(source, true, rounded);
    }

    /** The request part of a content or copying tag: {@code <kind>/<id>/<linked|independent>/<bytes>}. */
    static String request(VolumeSource source, boolean linked, ByteSize rounded) {
        return source.request(linked, rounded);
    }

    /** The LV as a snapshot of this installation in this pool; empty for any other LV. */
    Optional<BackendSnapshot> ours(LvmReport.Stamped stamped) {
        Lv lv = stamped.lv();
        if (!isSnapshotName(lv.name()) || !lv.pool().equals(pool) || !lv.tags().contains(SNAPSHOT_TAG)
                || !lv.tags().contains(installationTag)) {
            return Optional.empty();
        }
        try {
            SnapshotId id = SnapshotId.of(lv.name().substring(PREFIX.length()));
            VolumeId source = VolumeId.of(lv.tags().stream().filter(t -> t.startsWith(SOURCE_TAG)).findFirst()
                    .map(t -> t.substring(SOURCE_TAG.length())).orElse(""));
            return Optional.of(new BackendSnapshot(id, source, ByteSize.of(lv.size()), stamped.created()));
        } catch (InvalidValueException e) {
            return Optional.empty(); // tagged as ours but not named or tagged as a snapshot is: never adopted
        }
    }

    /** The tags of ours on the LV that are not {@code wanted} (copied from an origin, or left by a crash). */
    static List<String> stray(Lv lv, List<String> wanted) {
        return lv.tags().stream().filter(t -> t.startsWith(LvmBackend.TAG) && !wanted.contains(t)).toList();
    }

    /** What the LV says it was made from, for a conflict's message. */
    static String contents(Lv lv) {
        List<String> contents = lv.tags().stream().filter(t -> t.startsWith(CONTENT_TAG)).map(t -> t.substring(CONTENT_TAG.length())).toList();
        List<String> copying = lv.tags().stream().filter(t -> t.startsWith(COPYING_TAG)).map(t -> t.substring(COPYING_TAG.length())).toList();
        return !copying.isEmpty() ? "an unfinished copy of " + String.join(", ", copying)
                : contents.isEmpty() ? "no content tag" : "made from " + String.join(", ", contents);
    }

    /** Whether the LV is a linear copy cut short (it carries a {@link #COPYING_TAG}). */
    static boolean unfinished(Lv lv) {
        return lv.tags().stream().anyMatch(t -> t.startsWith(COPYING_TAG));
    }

    /** The tags holding the LV as the source of unfinished clones. */
    static List<String> cloningTags(Lv lv) {
        return lv.tags().stream().filter(t -> t.startsWith(CLONING_TAG)).toList();
    }

    /** The checkpoint tags on the LV (one, but a crash may never leave more than the lvchange swapping them). */
    static List<String> copiedTags(Lv lv) {
        return tagged(lv, COPIED_TAG);
    }

    /** The LV's tags with this prefix. */
    static List<String> tagged(Lv lv, String prefix) {
        return lv.tags().stream().filter(t -> t.startsWith(prefix)).toList();
    }

    /**
     * The bytes an unfinished copy has on stable storage, by its checkpoint tag; 0 without one or with one
     * that is not a number (never trusted beyond what it says: the lowest of several).
     */
    static long copied(Lv lv) {
        return Math.max(0, checkpoint(lv, COPIED_TAG));
    }

    /**
     * The offset a checkpoint tag with this prefix records ({@code <prefix><bytes>}): the lowest of several,
     * 0 when one is not a number, -1 without one.
     */
    static long checkpoint(Lv lv, String prefix) {
        long lowest = Long.MAX_VALUE;
        for (String tag : tagged(lv, prefix)) {
            try {
                lowest = Math.min(lowest, Math.max(0, Long.parseLong(tag.substring(prefix.length()))));
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return lowest == Long.MAX_VALUE ? -1 : lowest;
    }
}
