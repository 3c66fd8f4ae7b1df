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
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;

/**
 * ZFS volumes (zvols) directly below a parent dataset: volume {@code pvc-1} of backend
 * {@code pool=tank, parent=k8s} is {@code tank/k8s/pvc-1}.
 *
 * <p>Ownership: every zvol this backend creates carries the user property
 * {@value #MANAGED_PROPERTY}{@code =<installation id>} set on the zvol itself; only zvols with that
 * value set locally are listed, grown or destroyed. A value inherited from a parent (source
 * {@code inherited from ...}) or another installation's is not ownership: any such dataset of a
 * volume's name is a conflict.
 *
 * <p>Sizes are rounded up to the zvol's volblocksize (ZFS refuses any other volsize), and
 * {@code zfs set volsize} would shrink a zvol silently, so a smaller size is refused here before any
 * command. Zvols are created with {@code volmode=dev}: the block device without partition scanning,
 * so the storage host never parses partition tables a tenant writes. Options: see {@link ZfsOptions}.
 *
 * <p>Capacity: a non-sparse zvol reserves more than its volsize (its refreservation includes metadata,
 * 555,745,280 bytes for 512 MiB with 8K blocks); ZFS counts that against the parent's {@code available},
 * which is what {@link #capacity()} reports.
 *
 * <p>Remanence: a new zvol reads zeroes wherever it was not written, also on a pool that held a deleted
 * one (ZFS allocates blocks copy-on-write and reads an unwritten block as a hole), so nothing is zeroed
 * here and no pool setting is checked ({@code DataRemanenceKernelIT} proves it).
 *
 * <p>Snapshots ({@link ZfsSnapshots} names the datasets; {@link ZfsClones} makes restores and clones, the
 * same code as {@link ZfsDatasetBackend}'s, this class's {@link ZfsLayout} being what is zvol's):
 * {@code zfs snapshot <volume>@<id>}; a restore or clone is LINKED (the default, {@code zfs clone}) or
 * INDEPENDENT ({@code zfs send | zfs recv -s} in the background, resumed after a restart, into a temporary
 * name renamed when complete, its received snapshot destroyed so nothing ties it to the source). A clone
 * of a volume passes through a snapshot of it, destroyed with {@code -d} (deferred: it goes with the
 * linked clone) or once the copy is whole. A deleted snapshot is {@code zfs destroy -d}: one
 * that clones use lingers, deferred, never found nor listed, until ZFS destroys it with its last clone.
 * A deleted zvol that still has snapshots is never refused: it is renamed to a hidden name (never
 * found, listed nor adopted) and destroyed once nothing depends on it, tried after every delete and at
 * start-up ({@link #reapHidden}).
 *
 * <p>The commands themselves (arguments, deadlines, output, failures) are {@link Zfs}'s; this class
 * keeps the policy: ownership, rounding, sizes and the device waits.
 */
public final class ZfsVolumeBackend implements VolumeBackend {
    /** The user property that marks a zvol as created by this driver (user properties need a ':'). */
    public static final String MANAGED_PROPERTY = "io.pillar-csi:managed";
    /** What a lookup reads of a zvol. */
    private static final String ZVOL_PROPERTIES = "volsize,volblocksize," + MANAGED_PROPERTY;
    private static final Duration DEVICE_POLL = Duration.ofMillis(50);
    private static final Logger LOG = Logger.getLogger(ZfsVolumeBackend.class.getName());

    private final BackendConfig config;
    private final Zfs zfs;
    private final ZvolDevices devices;
    private final Duration deviceTimeout;
    private final String parent;
    private final String owner;
    private final ZfsSnapshotCommands snapshotCommands;
    private final ZfsSnapshots snapshots;
    private final ZfsClones clones;

    /**
     * @param devRoot        the device tree ({@code /dev}): zvol links and {@code zdN} nodes
     * @param sysRoot        sysfs ({@code /sys}): {@code block/zdN} when udev makes no links
     * @param zvolId         the program that names a zvol device's dataset ({@code /lib/udev/zvol_id})
     * @param commandTimeout the deadline of each command
     * @param deviceTimeout  how long to wait for a zvol's block device to appear
     */
    public ZfsVolumeBackend(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Path zvolId,
            Duration commandTimeout, Duration deviceTimeout) {
        this(config, runner, devRoot, sysRoot, zvolId, commandTimeout, deviceTimeout, InstallationId.EMBEDDED);
    }

    /** @param installation the installation whose zvols this backend owns and marks its new ones with */
    public ZfsVolumeBackend(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Path zvolId,
            Duration commandTimeout, Duration deviceTimeout, InstallationId installation) {
        if (config.kind() != BackendKind.BACKEND_KIND_ZFS_ZVOL) {
            throw new IllegalArgumentException("backend " + config.name() + " is not a zfs backend: " + config.kind());
        }
        this.config = config;
        this.devices = new ZvolDevices(runner, devRoot, sysRoot, zvolId, commandTimeout, System::nanoTime);
        this.deviceTimeout = deviceTimeout;
        this.parent = config.parent().isEmpty() ? config.pool() : config.pool() + "/" + config.parent();
        this.zfs = new Zfs(runner, commandTimeout, parent);
        this.owner = installation.value();
        this.snapshotCommands = new ZfsSnapshotCommands(runner, commandTimeout, parent);
        Layout layout = new Layout();
        this.snapshots = new ZfsSnapshots(zfs, snapshotCommands, parent, owner, layout);
        this.clones = new ZfsClones(zfs, snapshotCommands, snapshots, layout, parent, owner, config.name(), BackgroundJobs.CALL_WAIT);
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool) {
        ZfsOptions opts = ZfsOptions.parse(options);
        String dataset = zfs.dataset(id);
        if (size.bytes() <= 0) {
            throw new BackendException(Kind.OUT_OF_RANGE, "a volume needs a size above 0 bytes");
        }
        ByteSize rounded = roundUp(size, opts.volblocksize());
        // zfs create first: it refuses an existing dataset, and only then is that one read (one
        // command for a new volume, where reading first cost two zfs get every time)
        switch (zfs.create(id, rounded, opts, MANAGED_PROPERTY, owner)) {
            case Creation.NameTaken taken -> {
                Zvol existing = lookup(id).orElseThrow(() -> BackendException.failed("zfs says " + dataset
                        + " exists, zfs get does not find it", taken.cause()));
                return adopt(existing, id, rounded, opts);
            }
            case Creation.NoRoom full -> throw noSpace(id, rounded, full.cause());
            case Creation.Made made -> {
                // made as asked: ZFS takes a multiple of the volblocksize as it is
            }
        }
        LOG.info(() -> "created zvol " + dataset + " of " + rounded + (opts.sparse() ? " (sparse)" : ""));
        return usable(id, new Zvol(dataset, rounded.bytes(), opts.volblocksize(), owner));
    }

    /** zfs create failed for space: beyond the parent's whole size is OUT_OF_RANGE (never fits), else NO_SPACE. */
    private BackendException noSpace(VolumeId id, ByteSize rounded, CommandFailedException e) {
        Zfs.Space space = zfs.space();
        if (rounded.bytes() > space.total()) {
            return new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " of " + rounded + " is larger than " + parent
                    + " (" + ByteSize.of(space.total()) + "); ask for sparse=true to overcommit", e);
        }
        return new BackendException(Kind.NO_SPACE, parent + " has " + ByteSize.of(space.available()) + " available, volume "
                + id + " needs " + rounded + " and its metadata: " + Texts.oneLine(e.stderr()), e);
    }

    @Override
    public Optional<BackendVolume> find(VolumeId id) {
        return lookup(id).filter(this::owns).map(zvol -> usable(id, zvol));
    }

    @Override
    public boolean exists(VolumeId id) {
        return lookup(id).filter(this::owns).isPresent();
    }

    /** One {@code zfs get -r} of the parent's zvols for all of them; each is then made usable as {@link #find} does. */
    @Override
    public Map<VolumeId, BackendVolume> findAll(Collection<VolumeId> ids) {
        Map<String, Map<String, ZfsOutput.Property>> rows = zfs.zvolsOfParentIfAny(ZVOL_PROPERTIES);
        Map<VolumeId, BackendVolume> found = new LinkedHashMap<>();
        for (VolumeId id : ids) {
            String dataset = zfs.dataset(id);
            Map<String, ZfsOutput.Property> properties = rows.get(dataset);
            if (properties != null) {
                Zvol zvol = zvol(dataset, properties);
                if (owns(zvol)) {
                    found.put(id, usable(id, zvol));
                }
            }
        }
        return found;
    }

    /** The pool's health as {@code zpool list -H -o health POOL} prints it (ONLINE, DEGRADED, ...). */
    @Override
    public PoolHealth health() {
        return PoolHealth.zpool(zfs.poolHealth());
    }

    @Override
    public Optional<InstallationId> owner(VolumeId id) {
        return lookup(id).filter(zvol -> zvol.volsize() > 0).flatMap(zvol -> {
            try {
                return zvol.mark().isEmpty() ? Optional.empty() : Optional.of(InstallationId.of(zvol.mark()));
            } catch (InvalidValueException e) {
                return Optional.empty();
            }
        });
    }

    @Override
    public ByteSize expand(VolumeId id, ByteSize required) {
        String dataset = zfs.dataset(id);
        Zvol zvol = lookup(id).filter(this::owns)
                .orElseThrow(() -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist below " + parent));
        ByteSize rounded = roundUp(required, zvol.volblocksize());
        if (rounded.bytes() == zvol.volsize()) {
            return rounded;
        }
        if (rounded.bytes() < zvol.volsize()) {
            // zfs set volsize would shrink the zvol without a word, cutting off the file system's end
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " is " + ByteSize.of(zvol.volsize()) + "; " + required
                    + " would shrink it, and volumes never shrink");
        }
        zfs.setVolsize(id, rounded);
        // a multiple of the volblocksize zfs get just reported: zfs set takes it as it is, or fails
        LOG.info(() -> "grew zvol " + dataset + " from " + ByteSize.of(zvol.volsize()) + " to " + rounded);
        return rounded;
    }

    @Override
    public void delete(VolumeId id) {
        String dataset = zfs.dataset(id);
        Optional<Zvol> zvol = lookup(id);
        if (zvol.isEmpty()) {
            clones.abandon(id); // a copy onto it not finished yet: stopped, its partial receive destroyed
            zfs.space(); // "does not exist" also when the pool is not imported: that is no proof of deletion
            return;
        }
        if (!owns(zvol.get())) {
            throw new BackendException(Kind.FAILED, "refusing to destroy " + dataset + ": " + ownership(zvol.get())
                    + ", so this installation did not create it");
        }
        if (destroyWhileBusy(dataset) == ZfsSnapshotCommands.Destroyed.HAS_DEPENDENTS) {
            String hidden = snapshots.hidden(id);
            snapshotCommands.rename(dataset, hidden);
            devices.renamed(dataset);
            LOG.info(() -> "zvol " + dataset + " has snapshots: hidden as " + hidden + " until nothing depends on it");
        } else {
            LOG.info(() -> "destroyed zvol " + dataset);
        }
        reapHidden();
    }

    /**
     * {@code zfs destroy} of a zvol, excluding the agent's own {@code zvol_id} probes
     * ({@link ZvolDevices#unprobed}: one holding the zvol open would make ZFS refuse it "busy"), retried
     * while busy ({@link DeviceWait#whileBusy}); still busy past that, FAILED.
     */
    private ZfsSnapshotCommands.Destroyed destroyWhileBusy(String dataset) {
        ZfsSnapshotCommands.Destroyed[] outcome = {ZfsSnapshotCommands.Destroyed.BUSY};
        DeviceWait.whileBusy(deviceTimeout, () -> {
            outcome[0] = devices.unprobed(() -> snapshotCommands.destroy(dataset, ""));
            return outcome[0] != ZfsSnapshotCommands.Destroyed.BUSY ? Optional.empty() : Optional.of(new BackendException(Kind.FAILED,
                    dataset + " is busy: unexport it first (an nvmet namespace or another user still holds the zvol)"));
        });
        return outcome[0];
    }

    /** Stops the independent copies, each resumed by its next CreateVolume. */
    @Override
    public void close() {
        clones.close();
    }

    /** Destroys the hidden zvols nothing depends on any more (after a delete, a crash, at start-up); never throws. */
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

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool,
                                VolumeSource source) {
        ZfsOptions.parse(options);
        return clones.create(id, size, source);
    }

    /** What the shared snapshot and clone policy needs of zvols: volsize in volblocksizes, the device, volmode. */
    private final class Layout implements ZfsLayout {
        @Override
        public String noun() {
            return "zvol";
        }

        @Override
        public Optional<Own> own(VolumeId id) {
            return lookup(id).filter(ZfsVolumeBackend.this::owns).map(z -> new Own(z.volsize(), z.volblocksize()));
        }

        @Override
        public Optional<Made> made(VolumeId id) {
            String dataset = zfs.dataset(id);
            return zfs.properties(id, ZVOL_PROPERTIES + "," + ZfsSnapshots.CONTENT_PROPERTY).map(p -> {
                Zvol zvol = zvol(dataset, p);
                return new Made(owns(zvol), zvol.volsize(), zvol.volblocksize(),
                        p.getOrDefault(ZfsSnapshots.CONTENT_PROPERTY, ZfsOutput.Property.NONE).localValue(), ownership(zvol));
            });
        }

        @Override
        public List<String> properties(ByteSize size) {
            return List.of("volmode=dev");
        }

        @Override
        public boolean sizedByProperties() {
            return false; // a clone or copy has its origin's volsize
        }

        @Override
        public void grow(String dataset, ByteSize size) {
            snapshotCommands.setVolsize(dataset, size);
        }

        @Override
        public void rename(String from, String to) {
            snapshotCommands.rename(from, to);
            devices.renamed(from);
        }

        @Override
        public BackendVolume usable(VolumeId id, long size) {
            return ZfsVolumeBackend.this.usable(id, new Zvol(zfs.dataset(id), size, 0, owner));
        }

        @Override
        public Map<String, Map<String, ZfsOutput.Property>> ofParent(String properties) {
            return zfs.zvolsOfParentIfAny(properties);
        }

        @Override
        public ZfsSnapshotCommands.Destroyed destroyHidden(String dataset) {
            try {
                return destroyWhileBusy(dataset);
            } catch (BackendException stillBusy) {
                return ZfsSnapshotCommands.Destroyed.BUSY; // left for the next delete or start-up
            }
        }
    }

    @Override
    public List<BackendVolume> list() {
        Map<String, Map<String, ZfsOutput.Property>> rows = zfs.zvolsOfParent("volsize," + MANAGED_PROPERTY);
        Map<VolumeId, Zvol> ours = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, ZfsOutput.Property>> row : rows.entrySet()) {
            String name = row.getKey();
            ZfsOutput.Property mark = row.getValue().get(MANAGED_PROPERTY);
            if (mark == null || !mark.localValue().equals(owner) || !name.startsWith(parent + "/")
                    || name.contains(ZfsSnapshots.HIDDEN) || name.endsWith(ZfsSnapshots.RECEIVING)) {
                continue;
            }
            ZfsOutput.Property size = row.getValue().get("volsize");
            try {
                VolumeId id = VolumeId.of(name.substring(parent.length() + 1));
                long volsize = ZfsOutput.bytes(size == null ? ZfsOutput.UNSET : size.value())
                        .orElseThrow(() -> new BackendException(Kind.FAILED, name + " has no volsize"));
                ours.put(id, new Zvol(name, volsize, 0, owner));
            } catch (InvalidValueException e) {
                LOG.warning(() -> "ignoring zvol " + name + ": it is marked " + MANAGED_PROPERTY + " but its name is not a volume ID");
            }
        }
        Map<String, Path> found = devices.all(ours.values().stream().map(Zvol::dataset).toList());
        List<BackendVolume> volumes = new ArrayList<>();
        // a zvol whose node is not there (yet) is listed with the path udev would give it
        ours.forEach((id, zvol) -> volumes.add(new BackendVolume(id, ByteSize.of(zvol.volsize()),
                found.getOrDefault(zvol.dataset(), devices.udevLink(zvol.dataset())))));
        return volumes;
    }

    @Override
    public Capacity capacity() {
        Zfs.Space space = zfs.space();
        return new Capacity(ByteSize.of(space.total()), ByteSize.of(space.available()));
    }

    // --- helpers ---------------------------------------------------------------------------------------

    /**
     * A dataset as {@code zfs get} reports it; {@code volsize} 0 for a dataset that is no zvol.
     *
     * @param mark the value of {@value #MANAGED_PROPERTY} when set locally on the dataset, else ""
     */
    private record Zvol(String dataset, long volsize, long volblocksize, String mark) {
    }

    /** A zvol of this installation: marked with its id, locally. */
    private boolean owns(Zvol zvol) {
        return zvol.volsize() > 0 && zvol.mark().equals(owner);
    }

    private String ownership(Zvol zvol) {
        return (zvol.mark().isEmpty() ? "it has no " + MANAGED_PROPERTY + " set locally" : "its " + MANAGED_PROPERTY + " is "
                + zvol.mark()) + " (this installation's: " + owner + ")";
    }

    /** The volume's dataset, whoever made it; empty when it does not exist. */
    private Optional<Zvol> lookup(VolumeId id) {
        String dataset = zfs.dataset(id);
        return zfs.properties(id, ZVOL_PROPERTIES).map(properties -> zvol(dataset, properties));
    }

    /** The dataset as {@code zfs get} of {@link #ZVOL_PROPERTIES} describes it (a file system or snapshot is never ours). */
    private static Zvol zvol(String dataset, Map<String, ZfsOutput.Property> properties) {
        var volsize = ZfsOutput.bytes(properties.getOrDefault("volsize", ZfsOutput.Property.NONE).value());
        var volblocksize = ZfsOutput.bytes(properties.getOrDefault("volblocksize", ZfsOutput.Property.NONE).value());
        String mark = properties.getOrDefault(MANAGED_PROPERTY, ZfsOutput.Property.NONE).localValue();
        if (volsize.isEmpty() || volblocksize.isEmpty()) {
            return new Zvol(dataset, 0, 0, mark);
        }
        return new Zvol(dataset, volsize.getAsLong(), volblocksize.getAsLong(), mark);
    }

    private BackendVolume adopt(Zvol zvol, VolumeId id, ByteSize rounded, ZfsOptions opts) {
        if (!owns(zvol)) {
            throw new BackendException(Kind.CONFLICT, "a dataset named " + zvol.dataset() + " already exists and is not a zvol of"
                    + " this installation (" + ownership(zvol) + ")");
        }
        if (zvol.volblocksize() != opts.volblocksize()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with volblocksize " + zvol.volblocksize()
                    + ", not the " + opts.volblocksize() + " requested");
        }
        if (zvol.volsize() != rounded.bytes()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(zvol.volsize())
                    + ", not the " + rounded + " requested");
        }
        return usable(id, zvol);
    }

    private BackendVolume usable(VolumeId id, Zvol zvol) {
        Path device = DeviceWait.await("zvol " + zvol.dataset(), deviceTimeout, DEVICE_POLL,
                "is the zfs module loaded, and volmode not none? without udev, is zvol_id installed?",
                () -> devices.find(zvol.dataset(), zvol.volsize()));
        return new BackendVolume(id, ByteSize.of(zvol.volsize()), device);
    }

    private static ByteSize roundUp(ByteSize size, long volblocksize) {
        try {
            return size.roundUpTo(volblocksize);
        } catch (InvalidValueException e) {
            throw new BackendException(Kind.OUT_OF_RANGE, size + " cannot be rounded up to the volblocksize " + volblocksize, e);
        }
    }
}
