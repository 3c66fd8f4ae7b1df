package pillar.agent.backend.zfs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.Creation;
import pillar.agent.backend.DeviceWait;
import pillar.agent.backend.KernelExports;
import pillar.agent.backend.Texts;
import pillar.agent.backend.zfs.ZfsOutput.Property;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.ProcessRunner;

/**
 * Filesystem datasets directly below a parent dataset, for NFS ({@link ZfsBackend}): a volume's size is its
 * {@code refquota} (exact bytes; it caps and reserves nothing, so ZFS never refuses a create for space), its
 * {@link BackendVolume#mountPath()} the {@code mountpoint} zfs reports, where it must be mounted. Options:
 * {@code compression} only.
 *
 * <p>Invariants: every dataset made here (created, cloned or received) carries {@code snapdir=hidden} and
 * {@code sharenfs=off} set locally, so no parent setting lists {@code .zfs} or has ZFS export it. No command has
 * libzfs commit its shares, which runs {@code exportfs -ra} (docs/nfs.md fact 11): creates and receives are
 * {@code -u}, clones {@code canmount=noauto} until usable, mounts are mount.zfs, unmounts umount(8) before a
 * destroy or rename, renames {@code zfs rename -u}. A deleted dataset with datasets below it that this driver
 * did not make is refused.
 */
public final class ZfsDatasetBackend extends ZfsBackend<ZfsDatasetBackend.Fs> {
    /** What a lookup reads of a dataset. */
    private static final String PROPERTIES = "type,refquota,mountpoint,mounted," + MANAGED_PROPERTY;
    /** Set locally on every dataset this backend makes (see the class comment). */
    static final List<String> FILESYSTEM_PROPERTIES = List.of("snapdir=hidden", "sharenfs=off");
    /** A clone or copy is made with it, set to on when it is made usable ({@link #usableClone}). */
    static final String UNMOUNTED_UNTIL_USABLE = "canmount=noauto";
    private static final Logger LOG = Logger.getLogger(ZfsDatasetBackend.class.getName());

    private final Duration busyTimeout;

    /**
     * @param commandTimeout the deadline of each command
     * @param busyTimeout    how long a delete retries a dataset that is busy (still mounted by a user)
     * @param installation   the installation whose datasets this backend owns and marks its new ones with
     */
    public ZfsDatasetBackend(BackendConfig config, ProcessRunner runner, Duration commandTimeout, Duration busyTimeout,
                             InstallationId installation) {
        super(config, BackendKind.BACKEND_KIND_ZFS_DATASET, "zfs-dataset", runner, commandTimeout, installation, PROPERTIES);
        this.busyTimeout = busyTimeout;
    }

    /**
     * A dataset as {@code zfs get} of {@link #PROPERTIES} reports it.
     *
     * @param filesystem whether it is a filesystem (a zvol or snapshot of the name is never ours)
     * @param size       its refquota, 0 when none is set
     */
    record Fs(String dataset, boolean filesystem, long size, String mountpoint, boolean mounted, String mark) implements Dataset {
        @Override
        public boolean ofType() {
            return filesystem;
        }

        @Override
        public long granularity() {
            return 1;
        }
    }

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool) {
        Optional<String> compression = parseOptions(options);
        String dataset = zfs.dataset(id);
        if (size.bytes() <= 0) {
            throw new BackendException(Kind.OUT_OF_RANGE, "a volume needs a size above 0 bytes");
        }
        switch (zfs.createFilesystem(id, size, FILESYSTEM_PROPERTIES, compression, MANAGED_PROPERTY, owner)) {
            case Creation.NameTaken taken -> {
                Fs existing = lookup(id).orElseThrow(() -> BackendException.failed("zfs says " + dataset
                        + " exists, zfs get does not find it", taken.cause()));
                if (!owns(existing)) {
                    throw new BackendException(Kind.CONFLICT, "a dataset named " + dataset + " already exists and is not a"
                            + " filesystem of this installation (" + ownership(existing) + ")");
                }
                if (existing.size() != size.bytes()) {
                    throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(existing.size())
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
    public List<BackendVolume> list() {
        List<BackendVolume> volumes = new ArrayList<>();
        for (Map.Entry<String, Map<String, Property>> row : zfs.filesystemsOfParent(PROPERTIES, true).entrySet()) {
            String name = row.getKey();
            Fs fs = parse(name, row.getValue());
            if (!owns(fs) || !volumeName(name)) {
                continue;
            }
            try {
                VolumeId id = VolumeId.of(name.substring(parent.length() + 1));
                volumes.add(BackendVolume.filesystem(id, ByteSize.of(fs.size()), Path.of(fs.mountpoint())));
            } catch (InvalidValueException | java.nio.file.InvalidPathException e) {
                LOG.warning(() -> "ignoring dataset " + name + ": it is marked " + MANAGED_PROPERTY + " but its name is not a volume ID");
            }
        }
        return volumes;
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
        return new Fs(fs.dataset(), fs.filesystem(), fs.size(), fs.mountpoint(), true, fs.mark());
    }

    // --- what the shared base asks of filesystems --------------------------------------------------------

    @Override
    String noun() {
        return "dataset";
    }

    @Override
    Fs parse(String dataset, Map<String, Property> p) {
        boolean filesystem = p.getOrDefault("type", Property.NONE).value().equals("filesystem");
        long refquota = ZfsOutput.bytes(p.getOrDefault("refquota", Property.NONE).value()).orElse(0);
        return new Fs(dataset, filesystem, refquota, p.getOrDefault("mountpoint", Property.NONE).value(),
                p.getOrDefault("mounted", Property.NONE).value().equals("yes"), p.getOrDefault(MANAGED_PROPERTY, Property.NONE).localValue());
    }

    @Override
    String ownership(Fs fs) {
        return fs.filesystem() ? super.ownership(fs) : "it is no filesystem";
    }

    /** The volume with its mount path; one not mounted at an absolute path is FAILED (nfsd would export the parent's empty directory). */
    @Override
    BackendVolume usable(VolumeId id, Fs fs) {
        if (!fs.mountpoint().startsWith("/") || !fs.mounted()) {
            throw new BackendException(Kind.FAILED, "dataset " + fs.dataset() + " is not mounted (mountpoint " + Texts.printable(fs.mountpoint())
                    + ", mounted " + (fs.mounted() ? "yes" : "no") + "): give " + parent + " a mountpoint and run zfs mount -a");
        }
        return BackendVolume.filesystem(id, ByteSize.of(fs.size()), Path.of(fs.mountpoint()));
    }

    @Override
    Map<String, Map<String, Property>> ofParent(String properties) {
        return zfs.filesystemsOfParent(properties, false);
    }

    @Override
    String adoptionProperties() {
        return PROPERTIES + ",sharenfs";
    }

    /** A filesystem's size is its refquota: one without has none to serve (setting one is the operator's call). */
    @Override
    Optional<String> unsized(Fs fs) {
        return fs.size() > 0 ? Optional.empty() : Optional.of("it has no refquota, which is a volume's size here: set one"
                + " ('zfs set refquota=<bytes> " + fs.dataset() + "') and adopt it again");
    }

    /**
     * In use: ZFS shares it over NFS ({@code sharenfs} not {@code off}, set locally or inherited), or the NFS server's
     * export table lists its mountpoint or a directory below it ({@code exports}). Being mounted is not a use: every
     * volume of this backend is mounted.
     */
    @Override
    Optional<String> user(VolumeId id, Fs fs, Map<String, Property> properties, KernelExports exports) {
        Property sharenfs = properties.getOrDefault("sharenfs", Property.NONE);
        if (!sharenfs.value().equals("off")) {
            return Optional.of("ZFS shares it over NFS (sharenfs=" + Texts.printable(sharenfs.value()) + ", " + sharenfs.source() + ")");
        }
        return fs.mountpoint().startsWith("/") ? exports.directory(Path.of(fs.mountpoint())) : Optional.empty();
    }

    /** Mounted first when it is not (as create mounts a new one), then as {@link #find} returns it. */
    @Override
    BackendVolume adopted(VolumeId id, Fs fs) {
        return usable(id, mounted(fs));
    }

    /** Options as {@link #create(VolumeId, ByteSize, Map, NonZeroingPool)} checks them; a clone's compression is its parent's. */
    @Override
    void checkOptions(Map<String, String> options) {
        parseOptions(options);
    }

    @Override
    void resize(VolumeId id, ByteSize size) {
        zfs.setRefquota(id, size);
    }

    /**
     * {@code zfs destroy}, unmounted first with umount(8) when mounted ({@code zfs destroy} of a mounted dataset runs
     * exportfs -ra: fact 11), both retried while busy ({@link DeviceWait#whileBusy}). One with dependents is left unmounted.
     */
    @Override
    ZfsSnapshotCommands.Destroyed destroy(Fs fs) {
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

    /** Unmounted first when mounted (a boot's zfs mount -a mounts hidden ones too), as a delete. */
    @Override
    ZfsSnapshotCommands.Destroyed destroyHidden(String dataset) {
        Optional<Fs> fs = zfs.properties(dataset, PROPERTIES).map(p -> parse(dataset, p));
        return fs.isEmpty() ? ZfsSnapshotCommands.Destroyed.GONE : destroy(fs.get());
    }

    /** Refused when datasets this driver did not make are below it; unmounted already by {@link #destroy}. */
    @Override
    void hide(String dataset, String hidden) {
        List<String> below = commands.children(dataset);
        if (!below.isEmpty()) {
            throw new BackendException(Kind.FAILED, "refusing to destroy " + dataset + ": it has datasets below it this driver"
                    + " did not make: " + below);
        }
        super.hide(dataset, hidden);
    }

    /** {@code zfs rename -u}: a copy was received with {@code -u} and {@code canmount=noauto}, so it is not mounted. */
    @Override
    void rename(String from, String to) {
        commands.renameUnmounted(from, to);
    }

    /** The refquota with the clone or copy itself, and {@code canmount=noauto} until {@link #usableClone}. */
    @Override
    List<String> cloneProperties(ByteSize size) {
        List<String> properties = new ArrayList<>(List.of("refquota=" + size.bytes()));
        properties.addAll(FILESYSTEM_PROPERTIES);
        properties.add(UNMOUNTED_UNTIL_USABLE);
        return properties;
    }

    @Override
    boolean sizedByProperties() {
        return true;
    }

    @Override
    void growClone(String dataset, ByteSize size) {
        commands.setRefquota(dataset, size);
    }

    /**
     * Mounted where the parent puts it: one not mounted gets {@code canmount=on} (no mount, no share commit) and is
     * mounted with mount.zfs, never {@code zfs mount}; one without an absolute mountpoint is FAILED as {@link #find}.
     */
    @Override
    BackendVolume usableClone(VolumeId id, long size) {
        String dataset = zfs.dataset(id);
        Fs fs = lookup(id).orElseThrow(() -> new BackendException(Kind.FAILED, dataset + " was made but zfs get does not find it"));
        if (fs.mounted() || !fs.mountpoint().startsWith("/")) {
            return usable(id, fs);
        }
        commands.setCanmountOn(dataset);
        zfs.mountFilesystem(dataset, fs.mountpoint());
        LOG.info(() -> "mounted dataset " + dataset + " at " + fs.mountpoint());
        return usable(id, lookup(id).orElseThrow(() -> new BackendException(Kind.FAILED, dataset + " was mounted but zfs get does not find it")));
    }
}
