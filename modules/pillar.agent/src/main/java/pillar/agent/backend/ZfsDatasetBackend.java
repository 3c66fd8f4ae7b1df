package pillar.agent.backend;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.ZfsOutput.Property;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.ProcessRunner;

/**
 * Filesystem datasets directly below a parent dataset, for NFS: volume {@code pvc-1} of backend
 * {@code pool=tank, parent=nfs} is {@code tank/nfs/pvc-1}, its size the dataset's {@code refquota}, its
 * {@link BackendVolume#mountPath()} the {@code mountpoint} zfs reports (the dataset must be mounted there).
 *
 * <p>Ownership as {@link ZfsVolumeBackend}'s: {@value ZfsVolumeBackend#MANAGED_PROPERTY} set locally to
 * this installation's id on the dataset itself; any other dataset of a volume's name is never adopted,
 * listed, grown nor destroyed. Sizes are exact bytes (refquota needs no rounding); expand raises the
 * refquota and never lowers it (OUT_OF_RANGE). A refquota caps and reserves nothing, so capacity is the
 * parent's {@code available} and a create is never refused for space by ZFS. Options: {@code compression}
 * only ({@link ZfsOptions}'s values).
 *
 * <p>Every dataset this backend makes (created, cloned or received) carries {@code snapdir=hidden} and
 * {@code sharenfs=off} set locally: a parent's {@code snapdir=visible} would list {@code .zfs} (and with it
 * every snapshot of the volume) to each NFS client, and a parent's {@code sharenfs} would have ZFS export the
 * dataset itself, to clients the agent never chose. Hidden is not a barrier: a client that names
 * {@code .zfs/snapshot/<id>} of its own volume can still read that volume's snapshots (data it had anyway).
 *
 * <p>Snapshots, restores and clones are the zvols' code ({@link ZfsSnapshots}, {@link ZfsClones}; this
 * class's {@link ZfsLayout} is what differs): {@code zfs snapshot <volume>@<id>} recording the refquota
 * then ({@value ZfsSnapshots#SIZE_PROPERTY}: a filesystem's snapshot has none), a LINKED restore or clone
 * {@code zfs clone}, an INDEPENDENT one {@code zfs send | zfs recv -s} in the background (resumed after a
 * restart) under a temporary name renamed when whole. A clone or copy is made with its refquota (the size asked for: larger than the source grows it,
 * smaller is OUT_OF_RANGE), the mark, and the properties above, and gets its mountpoint from the parent as
 * every volume does (the path nfsd exports). A deleted dataset that still has snapshots is renamed to a
 * hidden name (never found, listed nor adopted) and destroyed once nothing depends on it, after every
 * delete and at start-up ({@link #reapHidden}); one with datasets below it that this driver did not make
 * is refused.
 *
 * <p>No command here has libzfs commit its shares, which runs {@code exportfs -ra} and wipes every export
 * the agent made with exportfs (docs/nfs.md fact 11): a dataset is created with {@code zfs create -u}, a
 * clone or copy made with {@code canmount=noauto} ({@code zfs clone} mounts and shares only a canmount=on
 * one) and received with {@code zfs recv -u}, then set {@code canmount=on} (libzfs remounts nothing for
 * that) and mounted with mount.zfs ({@code mount -t zfs -o zfsutil}), never {@code zfs mount}. A mounted
 * dataset is unmounted with umount(8) before {@code zfs destroy} (hidden ones too) and before it is
 * renamed hidden; renames are {@code zfs rename -u} of unmounted datasets.
 */
public final class ZfsDatasetBackend implements VolumeBackend {
    private static final String MANAGED = ZfsVolumeBackend.MANAGED_PROPERTY;
    /** What a lookup reads of a dataset. */
    private static final String PROPERTIES = "type,refquota,mountpoint,mounted," + MANAGED;
    /** Set locally on every dataset this backend makes (see the class comment). */
    static final List<String> FILESYSTEM_PROPERTIES = List.of("snapdir=hidden", "sharenfs=off");
    /** A clone or copy is made with it, set to on when it is made usable (see {@link Layout#properties}). */
    static final String UNMOUNTED_UNTIL_USABLE = "canmount=noauto";
    private static final Logger LOG = Logger.getLogger(ZfsDatasetBackend.class.getName());

    private final BackendConfig config;
    private final Zfs zfs;
    private final ZfsSnapshotCommands commands;
    private final Duration busyTimeout;
    private final String parent;
    private final String owner;
    private final ZfsSnapshots snapshots;
    private final ZfsClones clones;

    /**
     * @param commandTimeout the deadline of each command
     * @param busyTimeout    how long a delete retries a dataset that is busy (still mounted by a user)
     * @param installation   the installation whose datasets this backend owns and marks its new ones with
     */
    public ZfsDatasetBackend(BackendConfig config, ProcessRunner runner, Duration commandTimeout, Duration busyTimeout,
                             InstallationId installation) {
        if (config.kind() != BackendKind.BACKEND_KIND_ZFS_DATASET) {
            throw new IllegalArgumentException("backend " + config.name() + " is not a zfs-dataset backend: " + config.kind());
        }
        this.config = config;
        this.parent = config.parent().isEmpty() ? config.pool() : config.pool() + "/" + config.parent();
        this.zfs = new Zfs(runner, commandTimeout, parent);
        this.commands = new ZfsSnapshotCommands(runner, commandTimeout, parent);
        this.busyTimeout = busyTimeout;
        this.owner = installation.value();
        Layout layout = new Layout();
        this.snapshots = new ZfsSnapshots(zfs, commands, parent, owner, layout);
        this.clones = new ZfsClones(zfs, commands, snapshots, layout, parent, owner, config.name(), BackgroundJobs.CALL_WAIT);
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool) {
        Optional<String> compression = parseOptions(options);
        String dataset = zfs.dataset(id);
        if (size.bytes() <= 0) {
            throw new BackendException(Kind.OUT_OF_RANGE, "a volume needs a size above 0 bytes");
        }
        switch (zfs.createFilesystem(id, size, FILESYSTEM_PROPERTIES, compression, MANAGED, owner)) {
            case Creation.NameTaken taken -> {
                Fs existing = lookup(id).orElseThrow(() -> BackendException.failed("zfs says " + dataset
                        + " exists, zfs get does not find it", taken.cause()));
                if (!owns(existing)) {
                    throw new BackendException(Kind.CONFLICT, "a dataset named " + dataset + " already exists and is not a"
                            + " filesystem of this installation (" + ownership(existing) + ")");
                }
                if (existing.refquota() != size.bytes()) {
                    throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(existing.refquota())
                            + ", not the " + size + " requested");
                }
                return usable(id, mounted(existing));
            }
            case Creation.NoRoom full -> throw new BackendException(Kind.NO_SPACE, parent + " has no room for " + id + ": "
                    + Texts.oneLine(full.cause().stderr()), full.cause());
            case Creation.Made made -> LOG.info(() -> "created dataset " + dataset + " with refquota " + size);
        }
        Fs made = lookup(id).orElseThrow(() -> new BackendException(Kind.FAILED, dataset + " was made but zfs get does not find it"));
        return usable(id, mounted(made));
    }

    /** Only {@code compression} (checked by {@link ZfsOptions}); zvol options mean nothing to a filesystem. */
    private static Optional<String> parseOptions(Map<String, String> options) {
        List<String> refused = options.keySet().stream().filter(k -> !"compression".equals(k))
                .map(k -> k == null ? "null" : "'" + Texts.printable(k) + "'").sorted().toList();
        if (!refused.isEmpty()) {
            throw new BackendException(Kind.INVALID, "zfs-dataset backends accept the volume option [compression]; refused " + refused);
        }
        return ZfsOptions.parse(options).compression();
    }

    @Override
    public Optional<BackendVolume> find(VolumeId id) {
        return lookup(id).filter(this::owns).map(fs -> usable(id, fs));
    }

    @Override
    public boolean exists(VolumeId id) {
        return lookup(id).filter(this::owns).isPresent();
    }

    /** One {@code zfs get -r -d 1} of the parent's filesystems for all of them. */
    @Override
    public Map<VolumeId, BackendVolume> findAll(Collection<VolumeId> ids) {
        Map<String, Map<String, Property>> rows = zfs.filesystemsOfParent(PROPERTIES, false);
        Map<VolumeId, BackendVolume> found = new LinkedHashMap<>();
        for (VolumeId id : ids) {
            String dataset = zfs.dataset(id);
            Map<String, Property> properties = rows.get(dataset);
            if (properties != null) {
                Fs fs = fs(dataset, properties);
                if (owns(fs)) {
                    found.put(id, usable(id, fs));
                }
            }
        }
        return found;
    }

    @Override
    public PoolHealth health() {
        return PoolHealth.zpool(zfs.poolHealth());
    }

    @Override
    public Optional<InstallationId> owner(VolumeId id) {
        return lookup(id).filter(Fs::filesystem).flatMap(fs -> {
            try {
                return fs.mark().isEmpty() ? Optional.empty() : Optional.of(InstallationId.of(fs.mark()));
            } catch (InvalidValueException e) {
                return Optional.empty();
            }
        });
    }

    @Override
    public ByteSize expand(VolumeId id, ByteSize required) {
        Fs fs = lookup(id).filter(this::owns)
                .orElseThrow(() -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist below " + parent));
        if (required.bytes() == fs.refquota()) {
            return required;
        }
        if (required.bytes() < fs.refquota()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " is " + ByteSize.of(fs.refquota()) + "; " + required
                    + " would shrink it, and volumes never shrink");
        }
        zfs.setRefquota(id, required);
        LOG.info(() -> "grew dataset " + fs.dataset() + " from " + ByteSize.of(fs.refquota()) + " to " + required);
        return required;
    }

    @Override
    public void delete(VolumeId id) {
        String dataset = zfs.dataset(id);
        Optional<Fs> fs = lookup(id);
        if (fs.isEmpty()) {
            clones.abandon(id); // a copy onto it not finished yet: stopped, its partial receive destroyed
            zfs.space(); // "does not exist" also when the pool is not imported: no proof of deletion
            return;
        }
        if (!owns(fs.get())) {
            throw new BackendException(Kind.FAILED, "refusing to destroy " + dataset + ": " + ownership(fs.get())
                    + ", so this installation did not create it");
        }
        if (destroyWhileBusy(fs.get()) == ZfsSnapshotCommands.Destroyed.HAS_DEPENDENTS) {
            List<String> below = commands.children(dataset);
            if (!below.isEmpty()) {
                throw new BackendException(Kind.FAILED, "refusing to destroy " + dataset + ": it has datasets below it this driver"
                        + " did not make: " + below);
            }
            String hidden = snapshots.hidden(id);
            commands.renameUnmounted(dataset, hidden); // unmounted by destroyWhileBusy: nothing remounts it
            LOG.info(() -> "dataset " + dataset + " has snapshots: hidden as " + hidden + " until nothing depends on it");
        } else {
            LOG.info(() -> "destroyed dataset " + dataset);
        }
        reapHidden();
    }

    /**
     * {@code zfs destroy} of a dataset, unmounted first with umount(8) when it is mounted ({@code zfs destroy} of a
     * mounted dataset runs exportfs -ra: docs/nfs.md fact 11), both retried while busy ({@link DeviceWait#whileBusy});
     * still busy past that, FAILED. A dataset that has dependents is left unmounted.
     */
    private ZfsSnapshotCommands.Destroyed destroyWhileBusy(Fs fs) {
        ZfsSnapshotCommands.Destroyed[] outcome = {ZfsSnapshotCommands.Destroyed.BUSY};
        boolean[] mounted = {fs.mounted() && fs.mountpoint().startsWith("/")};
        DeviceWait.whileBusy(busyTimeout, () -> {
            if (mounted[0] && zfs.unmountFilesystem(fs.mountpoint())) {
                mounted[0] = false;
            }
            outcome[0] = mounted[0] ? ZfsSnapshotCommands.Destroyed.BUSY : commands.destroy(fs.dataset(), "");
            return outcome[0] != ZfsSnapshotCommands.Destroyed.BUSY ? Optional.empty() : Optional.of(new BackendException(Kind.FAILED,
                    fs.dataset() + " is busy: unexport it first (nfsd or another user still holds the mounted dataset)"));
        });
        return outcome[0];
    }

    /** Stops the independent copies, each resumed by its next CreateVolume. */
    @Override
    public void close() {
        clones.close();
    }

    /** Destroys the hidden datasets nothing depends on any more (after a delete, a crash, at start-up); never throws. */
    public void reapHidden() {
        snapshots.reapHidden();
    }

    @Override
    public boolean snapshots() {
        return true;
    }

    @Override
    public BackendSnapshot snapshot(SnapshotId id, VolumeId source) {
        return snapshots.snapshot(id, source);
    }

    @Override
    public Optional<BackendSnapshot> findSnapshot(SnapshotId id) {
        return snapshots.find(id);
    }

    @Override
    public void deleteSnapshot(SnapshotId id) {
        snapshots.delete(id);
    }

    @Override
    public List<BackendSnapshot> listSnapshots() {
        return snapshots.list();
    }

    /** Options as {@link #create(VolumeId, ByteSize, Map, NonZeroingPool)} checks them; a clone's compression is its parent's. */
    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool,
                                VolumeSource source) {
        parseOptions(options);
        return clones.create(id, size, source);
    }

    @Override
    public List<BackendVolume> list() {
        List<BackendVolume> volumes = new ArrayList<>();
        for (Map.Entry<String, Map<String, Property>> row : zfs.filesystemsOfParent(PROPERTIES, true).entrySet()) {
            String name = row.getKey();
            Fs fs = fs(name, row.getValue());
            if (!owns(fs) || !name.startsWith(parent + "/") || name.contains(ZfsSnapshots.HIDDEN) || name.endsWith(ZfsSnapshots.RECEIVING)) {
                continue;
            }
            try {
                VolumeId id = VolumeId.of(name.substring(parent.length() + 1));
                volumes.add(BackendVolume.filesystem(id, ByteSize.of(fs.refquota()), Path.of(fs.mountpoint())));
            } catch (InvalidValueException | java.nio.file.InvalidPathException e) {
                LOG.warning(() -> "ignoring dataset " + name + ": it is marked " + MANAGED + " but its name is not a volume ID");
            }
        }
        return volumes;
    }

    @Override
    public Capacity capacity() {
        Zfs.Space space = zfs.space();
        return new Capacity(ByteSize.of(space.total()), ByteSize.of(space.available()));
    }

    /**
     * A dataset as {@code zfs get} of {@link #PROPERTIES} reports it.
     *
     * @param filesystem whether it is a filesystem (a zvol or snapshot of the name is never ours)
     * @param refquota   0 when none is set
     * @param mark       {@value ZfsVolumeBackend#MANAGED_PROPERTY} when set locally, else ""
     */
    private record Fs(String dataset, boolean filesystem, long refquota, String mountpoint, boolean mounted, String mark) {
    }

    private static Fs fs(String dataset, Map<String, Property> p) {
        boolean filesystem = p.getOrDefault("type", Property.NONE).value().equals("filesystem");
        long refquota = ZfsOutput.bytes(p.getOrDefault("refquota", Property.NONE).value()).orElse(0);
        return new Fs(dataset, filesystem, refquota, p.getOrDefault("mountpoint", Property.NONE).value(),
                p.getOrDefault("mounted", Property.NONE).value().equals("yes"), p.getOrDefault(MANAGED, Property.NONE).localValue());
    }

    private boolean owns(Fs fs) {
        return fs.filesystem() && fs.refquota() > 0 && fs.mark().equals(owner);
    }

    private String ownership(Fs fs) {
        if (!fs.filesystem()) {
            return "it is no filesystem";
        }
        return (fs.mark().isEmpty() ? "it has no " + MANAGED + " set locally" : "its " + MANAGED + " is " + fs.mark())
                + " (this installation's: " + owner + ")";
    }

    private Optional<Fs> lookup(VolumeId id) {
        String dataset = zfs.dataset(id);
        return zfs.properties(id, PROPERTIES).map(p -> fs(dataset, p));
    }

    /**
     * {@code fs} mounted at its mountpoint ({@link Zfs#mountFilesystem}) when it has an absolute one and is not
     * mounted (created with {@code zfs create -u}, or an earlier create stopped before mounting); as it is otherwise.
     */
    private Fs mounted(Fs fs) {
        if (fs.mounted() || !fs.mountpoint().startsWith("/")) {
            return fs;
        }
        zfs.mountFilesystem(fs.dataset(), fs.mountpoint());
        return new Fs(fs.dataset(), fs.filesystem(), fs.refquota(), fs.mountpoint(), true, fs.mark());
    }

    /** What the shared snapshot and clone policy needs of filesystems: refquota in bytes, the mount, the properties. */
    private final class Layout implements ZfsLayout {
        @Override
        public String noun() {
            return "dataset";
        }

        @Override
        public Optional<Own> own(VolumeId id) {
            return lookup(id).filter(ZfsDatasetBackend.this::owns).map(fs -> new Own(fs.refquota(), 1));
        }

        @Override
        public Optional<Made> made(VolumeId id) {
            String dataset = zfs.dataset(id);
            return zfs.properties(id, PROPERTIES + "," + ZfsSnapshots.CONTENT_PROPERTY).map(p -> {
                Fs fs = fs(dataset, p);
                return new Made(owns(fs), fs.refquota(), 1, p.getOrDefault(ZfsSnapshots.CONTENT_PROPERTY, Property.NONE).localValue(),
                        ownership(fs));
            });
        }

        /**
         * The refquota with the clone or copy itself (no moment without it under any name), and
         * {@code canmount=noauto}: zfs clone mounts a new filesystem and commits the shares only when its canmount
         * is on (fact 11); {@link #usable} sets it on, then mounts it with mount.zfs.
         */
        @Override
        public List<String> properties(ByteSize size) {
            List<String> properties = new ArrayList<>(List.of("refquota=" + size.bytes()));
            properties.addAll(FILESYSTEM_PROPERTIES);
            properties.add(UNMOUNTED_UNTIL_USABLE);
            return properties;
        }

        @Override
        public boolean sizedByProperties() {
            return true;
        }

        @Override
        public void grow(String dataset, ByteSize size) {
            commands.setRefquota(dataset, size);
        }

        /** {@code zfs rename -u}: the copy was received with {@code -u} and {@code canmount=noauto}, so it is not mounted. */
        @Override
        public void rename(String from, String to) {
            commands.renameUnmounted(from, to);
        }

        /**
         * Mounted where the parent puts it: one not mounted (a clone or copy made {@code canmount=noauto}) gets
         * {@code canmount=on} (no mount, no share commit) and is mounted with mount.zfs ({@link Zfs#mountFilesystem},
         * never {@code zfs mount}: fact 11); one without an absolute mountpoint is FAILED as {@link #find}.
         */
        @Override
        public BackendVolume usable(VolumeId id, long size) {
            String dataset = zfs.dataset(id);
            Fs fs = lookup(id).orElseThrow(() -> new BackendException(Kind.FAILED, dataset + " was made but zfs get does not find it"));
            if (fs.mounted() || !fs.mountpoint().startsWith("/")) {
                return ZfsDatasetBackend.this.usable(id, fs);
            }
            commands.setCanmountOn(dataset);
            zfs.mountFilesystem(dataset, fs.mountpoint());
            LOG.info(() -> "mounted dataset " + dataset + " at " + fs.mountpoint());
            return ZfsDatasetBackend.this.usable(id, lookup(id).orElseThrow(() -> new BackendException(Kind.FAILED,
                    dataset + " was mounted but zfs get does not find it")));
        }

        @Override
        public Map<String, Map<String, Property>> ofParent(String properties) {
            return zfs.filesystemsOfParent(properties, false);
        }

        /** Unmounted first with umount(8) when mounted (a boot's zfs mount -a mounts hidden ones too), as a delete. */
        @Override
        public ZfsSnapshotCommands.Destroyed destroyHidden(String dataset) {
            try {
                Optional<Fs> fs = zfs.properties(dataset, PROPERTIES).map(p -> fs(dataset, p));
                return fs.isEmpty() ? ZfsSnapshotCommands.Destroyed.GONE : destroyWhileBusy(fs.get());
            } catch (BackendException stillBusy) {
                return ZfsSnapshotCommands.Destroyed.BUSY; // left for the next delete or start-up
            }
        }
    }

    /** The volume with its mount path; a dataset that is not mounted at an absolute path is FAILED (nfsd would export the parent's empty directory). */
    private BackendVolume usable(VolumeId id, Fs fs) {
        if (!fs.mountpoint().startsWith("/") || !fs.mounted()) {
            throw new BackendException(Kind.FAILED, "dataset " + fs.dataset() + " is not mounted (mountpoint " + Texts.printable(fs.mountpoint())
                    + ", mounted " + (fs.mounted() ? "yes" : "no") + "): give " + parent + " a mountpoint and run zfs mount -a");
        }
        return BackendVolume.filesystem(id, ByteSize.of(fs.refquota()), Path.of(fs.mountpoint()));
    }
}
