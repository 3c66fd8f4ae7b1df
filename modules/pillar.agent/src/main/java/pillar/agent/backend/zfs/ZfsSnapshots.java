package pillar.agent.backend.zfs;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.zfs.ZfsOutput.Property;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * The snapshot side of both ZFS backends ({@link ZfsVolumeBackend}'s zvols, {@link ZfsDatasetBackend}'s
 * filesystems; what differs is their {@link ZfsLayout}): which snapshots are this installation's, taking,
 * finding and deleting them, and the names of the datasets a copy or a hidden volume passes through.
 * Names with a {@code '_'} can never be a volume's or a snapshot's (their IDs have no '_'), so they are
 * never found, listed nor adopted:
 * <ul>
 *   <li>a CSI snapshot is {@code <parent>/<volume>@<snapshot-id>} carrying {@value ZfsBackend#MANAGED_PROPERTY},
 *       {@value #SNAPSHOT_PROPERTY}, {@value #SOURCE_PROPERTY} and {@value #SIZE_PROPERTY}, so it is found by
 *       its ID alone, also once its volume was hidden; a deferred one ({@code defer_destroy=on}) is deleted
 *       and never found; only snapshots of datasets directly below the parent are considered;</li>
 *   <li>a clone of a volume goes through {@code <volume>@clone_<new-id>};</li>
 *   <li>a copy is received into {@code <parent>/<new-id>_receiving} and renamed once complete;</li>
 *   <li>a deleted volume that snapshots still depend on is renamed {@code <parent>/<id>_hidden_<random>}
 *       and destroyed once nothing depends on it ({@link #reapHidden}).</li>
 * </ul>
 */
final class ZfsSnapshots {
    /** The snapshot's CSI ID, on the ZFS snapshot. */
    static final String SNAPSHOT_PROPERTY = "io.pillar-csi:snapshot";
    /** The volume the snapshot was taken of, on the ZFS snapshot (its dataset may be hidden since). */
    static final String SOURCE_PROPERTY = "io.pillar-csi:source";
    /**
     * What a volume was made from, how, and the size asked for, {@code snapshot/<id>/linked/<bytes>}
     * style: a retry of the same request is recognised (and finishes a growth a crash cut short),
     * any other request is a conflict.
     */
    static final String CONTENT_PROPERTY = "io.pillar-csi:content";
    /**
     * The source volume's size when the snapshot was taken, in bytes, on the ZFS snapshot: a filesystem's
     * snapshot has no refquota of its own (a zvol's has its volsize, which is read first).
     */
    static final String SIZE_PROPERTY = "io.pillar-csi:size";
    static final String HIDDEN = "_hidden_";
    static final String RECEIVING = "_receiving";
    private static final String PROPERTIES = ZfsBackend.MANAGED_PROPERTY + "," + SNAPSHOT_PROPERTY + ","
            + SOURCE_PROPERTY + "," + SIZE_PROPERTY + ",defer_destroy,creation,volsize,volblocksize";
    private static final Logger LOG = Logger.getLogger(ZfsSnapshots.class.getName());

    private final Zfs zfs;
    private final ZfsSnapshotCommands commands;
    private final String parent;
    private final String owner;
    private final ZfsLayout layout;

    ZfsSnapshots(Zfs zfs, ZfsSnapshotCommands commands, String parent, String owner, ZfsLayout layout) {
        this.zfs = zfs;
        this.commands = commands;
        this.parent = parent;
        this.owner = owner;
        this.layout = layout;
    }

    /**
     * A snapshot of this installation as ZFS holds it: its full name, size, and the granularity a restore's
     * size rounds up to (a zvol's volblocksize, 1 for a filesystem).
     */
    record Found(String name, BackendSnapshot snapshot, long granularity, boolean deferred) {
    }

    /** Every snapshot of this installation below the parent, deferred ones included, in name order. */
    List<Found> all() {
        List<Found> found = new ArrayList<>();
        for (Map.Entry<String, Map<String, Property>> row : commands.snapshots(PROPERTIES).entrySet()) {
            Map<String, Property> p = row.getValue();
            String name = row.getKey();
            if (!name.contains("@") || !local(p, ZfsBackend.MANAGED_PROPERTY).equals(owner)
                    || name.substring(0, name.indexOf('@')).lastIndexOf('/') != parent.length() || !name.startsWith(parent + "/")) {
                continue; // another's, or of a dataset deeper below (another backend's parent may be there)
            }
            try {
                SnapshotId id = SnapshotId.of(local(p, SNAPSHOT_PROPERTY));
                VolumeId source = VolumeId.of(local(p, SOURCE_PROPERTY));
                // a zvol's snapshot has its volsize and volblocksize; a filesystem's only the size recorded on it
                OptionalLong volsize = ZfsOutput.bytes(value(p, "volsize"));
                String recorded = local(p, SIZE_PROPERTY);
                long size = volsize.isPresent() ? volsize.getAsLong() : recorded.isEmpty() ? 0 : ZfsOutput.bytes(recorded).orElse(0);
                long block = volsize.isPresent() ? ZfsOutput.bytes(value(p, "volblocksize")).orElse(8192) : 1;
                long created = ZfsOutput.bytes(value(p, "creation")).orElse(0);
                found.add(new Found(row.getKey(), new BackendSnapshot(id, source, ByteSize.of(size), Instant.ofEpochSecond(created)),
                        block, value(p, "defer_destroy").equals("on")));
            } catch (InvalidValueException e) {
                // a snapshot of ours without the snapshot properties: a clone's passage, never a CSI snapshot
            }
        }
        return found;
    }

    /** The snapshot of this ID, deferred or not. */
    Optional<Found> any(SnapshotId id) {
        return all().stream().filter(f -> f.snapshot().id().equals(id)).findFirst();
    }

    /**
     * {@link VolumeBackend#snapshot}: {@code zfs snapshot <volume>@<id>} with this installation's mark, the
     * snapshot's ID, its source and the source's size; a retry returns the snapshot taken.
     */
    BackendSnapshot snapshot(SnapshotId id, VolumeId source) {
        Optional<Found> existing = any(id);
        if (existing.isPresent()) {
            return same(existing.get(), id, source);
        }
        ZfsLayout.Own own = layout.own(source).orElseThrow(() -> new BackendException(Kind.NOT_FOUND,
                "volume " + source + " does not exist below " + parent));
        String name = zfs.dataset(source) + "@" + id.value();
        commands.snapshot(name, List.of(ZfsBackend.MANAGED_PROPERTY + "=" + owner, SNAPSHOT_PROPERTY + "=" + id.value(),
                SOURCE_PROPERTY + "=" + source.value(), SIZE_PROPERTY + "=" + own.size()));
        Found made = any(id).orElseThrow(() -> new BackendException(Kind.CONFLICT,
                "a snapshot named " + name + " exists and is not snapshot " + id + " of this installation"));
        LOG.info(() -> "took snapshot " + name);
        return same(made, id, source);
    }

    private static BackendSnapshot same(Found found, SnapshotId id, VolumeId source) {
        if (found.deferred()) {
            throw new BackendException(Kind.CONFLICT, "snapshot " + id + " was deleted (it lingers for its clones only)");
        }
        if (!found.snapshot().source().equals(source)) {
            throw new BackendException(Kind.CONFLICT, "snapshot " + id + " already exists of volume " + found.snapshot().source()
                    + ", not of " + source);
        }
        return found.snapshot();
    }

    /** {@link VolumeBackend#findSnapshot}: a deferred snapshot is deleted and never found. */
    Optional<BackendSnapshot> find(SnapshotId id) {
        return any(id).filter(f -> !f.deferred()).map(Found::snapshot);
    }

    /** {@link VolumeBackend#listSnapshots}. */
    List<BackendSnapshot> list() {
        return all().stream().filter(f -> !f.deferred()).map(Found::snapshot).toList();
    }

    /**
     * {@link VolumeBackend#deleteSnapshot}: {@code zfs destroy -d}, deferred by ZFS while clones use the
     * snapshot; then the hidden volumes it freed are reaped.
     */
    void delete(SnapshotId id) {
        Optional<Found> found = any(id);
        if (found.isPresent() && !found.get().deferred()) {
            commands.destroy(found.get().name(), "-d");
            LOG.info(() -> "destroyed snapshot " + found.get().name() + " (deferred while clones use it)");
        }
        reapHidden();
    }

    /** The snapshot a clone of {@code source} into {@code target} passes through. */
    String passage(VolumeId source, VolumeId target) {
        return zfs.dataset(source) + "@clone_" + target.value();
    }

    /** The passages of clones onto {@code target} that still exist, of any source below the parent. */
    List<String> passagesTo(VolumeId target) {
        String suffix = "@clone_" + target.value();
        return commands.snapshots(ZfsBackend.MANAGED_PROPERTY).keySet().stream().filter(name -> name.endsWith(suffix)).sorted().toList();
    }

    String receiving(VolumeId target) {
        return zfs.dataset(target) + RECEIVING;
    }

    /** A name for a deleted volume that is unique per deletion. */
    String hidden(VolumeId id) {
        return zfs.dataset(id) + HIDDEN + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
    }

    /**
     * Destroys every hidden volume of this installation that nothing depends on any more, as often as one
     * destroy frees another (a hidden clone held the deferred snapshot of another), each through the
     * layout's {@link ZfsLayout#destroyHidden} (the backend's: beside none of its own probes, retried while
     * busy). Never throws: what stays is tried again after the next delete or at start-up.
     */
    void reapHidden() {
        try {
            for (int pass = 0; pass < 8; pass++) {
                boolean progress = false;
                for (Map.Entry<String, Map<String, Property>> row : layout.ofParent(ZfsBackend.MANAGED_PROPERTY).entrySet()) {
                    if (row.getKey().contains(HIDDEN) && local(row.getValue(), ZfsBackend.MANAGED_PROPERTY).equals(owner)
                            && layout.destroyHidden(row.getKey()) == ZfsSnapshotCommands.Destroyed.GONE) {
                        LOG.info("destroyed hidden " + layout.noun() + " " + row.getKey() + ": nothing depends on it any more");
                        progress = true;
                    }
                }
                if (!progress) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            LOG.warning("hidden " + layout.noun() + "s below " + parent + " are left for later: " + e.getMessage());
        }
    }

    private static String local(Map<String, Property> properties, String name) {
        return properties.getOrDefault(name, Property.NONE).localValue();
    }

    private static String value(Map<String, Property> properties, String name) {
        return properties.getOrDefault(name, Property.NONE).value();
    }
}
