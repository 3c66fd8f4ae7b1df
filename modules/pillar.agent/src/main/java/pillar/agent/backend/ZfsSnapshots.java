package pillar.agent.backend;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.ZfsOutput.Property;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * The snapshot side of {@link ZfsVolumeBackend}: which snapshots are this installation's, and the
 * names of the datasets a copy or a hidden zvol passes through. Names with a {@code '_'} can never be
 * a volume's or a snapshot's (their IDs have no '_'), so they are never found, listed nor adopted:
 * <ul>
 *   <li>a CSI snapshot is {@code <parent>/<volume>@<snapshot-id>} carrying {@value ZfsVolumeBackend#MANAGED_PROPERTY},
 *       {@value #SNAPSHOT_PROPERTY} and {@value #SOURCE_PROPERTY}, so it is found by its ID alone, also
 *       once its volume was hidden; a deferred one ({@code defer_destroy=on}) is deleted and never found;</li>
 *   <li>a clone of a volume goes through {@code <volume>@clone_<new-id>};</li>
 *   <li>a copy is received into {@code <parent>/<new-id>_receiving} and renamed once complete;</li>
 *   <li>a deleted zvol that snapshots still depend on is renamed {@code <parent>/<id>_hidden_<random>}
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
    static final String HIDDEN = "_hidden_";
    static final String RECEIVING = "_receiving";
    private static final String PROPERTIES = ZfsVolumeBackend.MANAGED_PROPERTY + "," + SNAPSHOT_PROPERTY + ","
            + SOURCE_PROPERTY + ",defer_destroy,creation,volsize,volblocksize";
    private static final Logger LOG = Logger.getLogger(ZfsSnapshots.class.getName());

    private final Zfs zfs;
    private final ZfsSnapshotCommands commands;
    private final String parent;
    private final String owner;

    ZfsSnapshots(Zfs zfs, ZfsSnapshotCommands commands, String parent, String owner) {
        this.zfs = zfs;
        this.commands = commands;
        this.parent = parent;
        this.owner = owner;
    }

    /** A snapshot of this installation as ZFS holds it: its full name, size and block size. */
    record Found(String name, BackendSnapshot snapshot, long volblocksize, boolean deferred) {
    }

    /** Every snapshot of this installation below the parent, deferred ones included, in name order. */
    List<Found> all() {
        List<Found> found = new ArrayList<>();
        for (Map.Entry<String, Map<String, Property>> row : commands.snapshots(PROPERTIES).entrySet()) {
            Map<String, Property> p = row.getValue();
            if (!row.getKey().contains("@") || !local(p, ZfsVolumeBackend.MANAGED_PROPERTY).equals(owner)) {
                continue;
            }
            try {
                SnapshotId id = SnapshotId.of(local(p, SNAPSHOT_PROPERTY));
                VolumeId source = VolumeId.of(local(p, SOURCE_PROPERTY));
                long size = ZfsOutput.bytes(value(p, "volsize")).orElse(0);
                long block = ZfsOutput.bytes(value(p, "volblocksize")).orElse(8192);
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

    /** The properties a new CSI snapshot carries. */
    List<String> properties(SnapshotId id, VolumeId source) {
        return List.of(ZfsVolumeBackend.MANAGED_PROPERTY + "=" + owner, SNAPSHOT_PROPERTY + "=" + id.value(),
                SOURCE_PROPERTY + "=" + source.value());
    }

    /** What {@link #CONTENT_PROPERTY} records: the source and mode, and the size asked for (rounded). */
    static String sized(String content, ByteSize rounded) {
        return content + "/" + rounded.bytes();
    }

    /** The source and mode part of {@link #CONTENT_PROPERTY}. */
    static String content(VolumeSource source, boolean linked) {
        String how = linked ? "linked" : "independent";
        return switch (source) {
            case VolumeSource.FromSnapshot s -> "snapshot/" + s.snapshot().value() + "/" + how;
            case VolumeSource.FromVolume v -> "volume/" + v.volume().value() + "/" + how;
        };
    }

    /** The snapshot a clone of {@code source} into {@code target} passes through. */
    String passage(VolumeId source, VolumeId target) {
        return zfs.dataset(source) + "@clone_" + target.value();
    }

    String receiving(VolumeId target) {
        return zfs.dataset(target) + RECEIVING;
    }

    /** A name for a deleted zvol that is unique per deletion. */
    String hidden(VolumeId id) {
        return zfs.dataset(id) + HIDDEN + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
    }

    /**
     * Destroys every hidden zvol of this installation that nothing depends on any more, as often as one
     * destroy frees another (a hidden clone held the deferred snapshot of another), each through
     * {@code destroy} (the backend's: beside none of its own probes, retried while busy). Never throws:
     * what stays is tried again after the next delete or at start-up.
     */
    void reapHidden(Function<String, ZfsSnapshotCommands.Destroyed> destroy) {
        try {
            for (int pass = 0; pass < 8; pass++) {
                boolean progress = false;
                for (Map.Entry<String, Map<String, Property>> row : zfs.zvolsOfParentIfAny(ZfsVolumeBackend.MANAGED_PROPERTY).entrySet()) {
                    if (row.getKey().contains(HIDDEN) && local(row.getValue(), ZfsVolumeBackend.MANAGED_PROPERTY).equals(owner)
                            && destroy.apply(row.getKey()) == ZfsSnapshotCommands.Destroyed.GONE) {
                        LOG.info("destroyed hidden zvol " + row.getKey() + ": nothing depends on it any more");
                        progress = true;
                    }
                }
                if (!progress) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            LOG.warning("hidden zvols below " + parent + " are left for later: " + e.getMessage());
        }
    }

    private static String local(Map<String, Property> properties, String name) {
        return properties.getOrDefault(name, Property.NONE).localValue();
    }

    private static String value(Map<String, Property> properties, String name) {
        return properties.getOrDefault(name, Property.NONE).value();
    }

    static BackendException missing(VolumeSource source, String parent) {
        return new BackendException(Kind.NOT_FOUND, switch (source) {
            case VolumeSource.FromSnapshot s -> "snapshot " + s.snapshot() + " does not exist below " + parent;
            case VolumeSource.FromVolume v -> "volume " + v.volume() + " does not exist below " + parent;
        });
    }
}
