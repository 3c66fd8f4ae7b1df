package pillar.agent.backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException.Kind;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;

/**
 * Restores and clones below one parent, the same for zvols and filesystem datasets (what differs is
 * the backend's {@link ZfsLayout}): a LINKED volume is {@code zfs clone} of the snapshot, an
 * INDEPENDENT one {@code zfs send | zfs recv} into {@link ZfsSnapshots#receiving} (a copy a crash cut
 * short is destroyed and started again), its received snapshot destroyed, sized, and renamed to the
 * volume's name only when complete. A clone of a volume passes through {@link ZfsSnapshots#passage},
 * destroyed with {@code -d} (it goes with the linked clone) or at once after a copy. The new volume
 * carries the ownership mark and {@value ZfsSnapshots#CONTENT_PROPERTY}, so that a retry of the same
 * request returns it (finishing a growth a crash cut short) and any other request is a conflict.
 */
final class ZfsClones {
    private static final Logger LOG = Logger.getLogger(ZfsClones.class.getName());

    private final Zfs zfs;
    private final ZfsSnapshotCommands commands;
    private final ZfsSnapshots snapshots;
    private final ZfsLayout layout;
    private final String parent;
    private final String owner;

    ZfsClones(Zfs zfs, ZfsSnapshotCommands commands, ZfsSnapshots snapshots, ZfsLayout layout, String parent, String owner) {
        this.zfs = zfs;
        this.commands = commands;
        this.snapshots = snapshots;
        this.layout = layout;
        this.parent = parent;
        this.owner = owner;
    }

    /**
     * {@link VolumeBackend#create(VolumeId, ByteSize, java.util.Map, VolumeBackend.NonZeroingPool, VolumeSource)}
     * once the backend has checked the options: at least {@code size} (rounded up to the source's
     * granularity) and at least the source's size (OUT_OF_RANGE), a larger one grown.
     */
    BackendVolume create(VolumeId id, ByteSize size, VolumeSource source) {
        String dataset = zfs.dataset(id);
        boolean linked = source.mode() != VolumeSource.Mode.INDEPENDENT;
        String how = ZfsSnapshots.content(source, linked);
        // the origin: its snapshot's name, size and granularity (a clone of a volume passes through a new snapshot)
        String origin;
        long originSize;
        long granularity;
        switch (source) {
            case VolumeSource.FromSnapshot s -> {
                ZfsSnapshots.Found found = snapshots.any(s.snapshot()).filter(f -> !f.deferred())
                        .orElseThrow(() -> ZfsSnapshots.missing(source, parent));
                origin = found.name();
                originSize = found.snapshot().size().bytes();
                granularity = found.granularity();
            }
            case VolumeSource.FromVolume v -> {
                Optional<ZfsLayout.Own> from = layout.own(v.volume());
                if (from.isEmpty()) {
                    Optional<ZfsLayout.Made> made = layout.made(id).filter(m -> m.owned()
                            && m.content().equals(ZfsSnapshots.sized(how, roundUp(size, m.granularity()))));
                    if (made.isPresent()) {
                        return layout.usable(id, made.get().size()); // the source went after the clone was made: the retry is done
                    }
                    throw ZfsSnapshots.missing(source, parent);
                }
                origin = snapshots.passage(v.volume(), id);
                originSize = from.get().size();
                granularity = from.get().granularity();
            }
        }
        ByteSize rounded = roundUp(size, granularity);
        if (rounded.bytes() < originSize) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " of " + size + " is smaller than its source ("
                    + ByteSize.of(originSize) + ")");
        }
        String content = ZfsSnapshots.sized(how, rounded);
        Optional<ZfsLayout.Made> existing = layout.made(id);
        if (existing.isEmpty()) {
            make(dataset, id, rounded, content, source, origin, rounded.bytes() > originSize && !layout.sizedByProperties(), linked);
            existing = layout.made(id);
        }
        ZfsLayout.Made made = existing.orElseThrow(() -> new BackendException(Kind.FAILED, dataset + " was made but zfs get does not find it"));
        if (!made.owned() || !content.equals(made.content())) {
            throw new BackendException(Kind.CONFLICT, "a dataset named " + dataset + " already exists and was not made from "
                    + content + " (" + (made.content().isEmpty() ? made.ownership() : "it was made from " + made.content()) + ")");
        }
        if (made.size() < rounded.bytes() && linked) {
            layout.grow(dataset, rounded); // a crash came between the clone and its growth
            return layout.usable(id, rounded.bytes());
        }
        if (made.size() != rounded.bytes()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(made.size())
                    + ", not the " + rounded + " requested");
        }
        return layout.usable(id, made.size());
    }

    /** The commands of a new clone or copy of {@code origin} as {@code dataset}. */
    private void make(String dataset, VolumeId id, ByteSize rounded, String content, VolumeSource source, String origin,
                      boolean grow, boolean linked) {
        List<String> properties = new ArrayList<>(layout.properties(rounded));
        properties.add(ZfsVolumeBackend.MANAGED_PROPERTY + "=" + owner);
        properties.add(ZfsSnapshots.CONTENT_PROPERTY + "=" + content);
        if (source instanceof VolumeSource.FromVolume) {
            commands.snapshot(origin, List.of());
        }
        if (linked) {
            commands.clone(origin, dataset, properties);
            if (grow) {
                layout.grow(dataset, rounded);
            }
        } else {
            String receiving = snapshots.receiving(id);
            commands.destroy(receiving, "-r"); // a copy a crash cut short: started again
            commands.sendReceive(origin, receiving, properties);
            commands.destroy(receiving + origin.substring(origin.indexOf('@')), "");
            if (grow) {
                layout.grow(receiving, rounded);
            }
            layout.rename(receiving, dataset);
        }
        if (source instanceof VolumeSource.FromVolume) {
            commands.destroy(origin, linked ? "-d" : "");
        }
        LOG.info(() -> "made " + layout.noun() + " " + dataset + " of " + rounded + " from " + content);
    }

    private static ByteSize roundUp(ByteSize size, long granularity) {
        try {
            return size.roundUpTo(granularity);
        } catch (InvalidValueException e) {
            throw new BackendException(Kind.OUT_OF_RANGE, size + " cannot be rounded up to a multiple of " + granularity, e);
        }
    }
}
