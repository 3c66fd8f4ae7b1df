package pillar.agent.backend.zfs;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.BackgroundJobs;
import pillar.agent.backend.KernelExports;
import pillar.agent.backend.PoolHealth;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeSource;
import pillar.agent.backend.zfs.ZfsOutput.Property;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.ProcessRunner;

/**
 * What both ZFS backends share: volume {@code pvc-1} of backend {@code pool=tank, parent=k8s} is the dataset
 * {@code tank/k8s/pvc-1}, owned when it carries {@value #MANAGED_PROPERTY}{@code =<installation id>} set locally
 * (inherited or another installation's is a conflict: never adopted, listed, grown nor destroyed). Volumes never
 * shrink. A deleted volume that snapshots still depend on is renamed hidden and destroyed once nothing depends on
 * it ({@link #reapHidden}). Snapshots and clones are {@link ZfsSnapshots} and {@link ZfsClones}, through the
 * {@link ZfsLayout} this class makes of its subclass's answers; the commands are {@link Zfs}'s.
 *
 * @param <D> a dataset as the subclass reads it with {@code zfs get}
 */
public abstract sealed class ZfsBackend<D extends ZfsBackend.Dataset> implements VolumeBackend
        permits ZfsVolumeBackend, ZfsDatasetBackend {
    /** The user property that marks a dataset as created by this driver (user properties need a ':'). */
    public static final String MANAGED_PROPERTY = "io.pillar-csi:managed";
    private static final Logger LOG = Logger.getLogger(ZfsBackend.class.getName());

    final BackendConfig config;
    final String parent;
    final String owner;
    final Zfs zfs;
    final ZfsSnapshotCommands commands;
    final ZfsSnapshots snapshots;
    final ZfsClones clones;
    /** What a lookup reads of a dataset. */
    private final String properties;

    /** A dataset of a volume's name as {@code zfs get} reports it, whoever made it. */
    interface Dataset {
        String dataset();

        /** The value of {@value ZfsBackend#MANAGED_PROPERTY} when set locally, else "". */
        String mark();

        /** Whether it is of the backend's type (a zvol, a filesystem). */
        boolean ofType();

        /** Its size: a zvol's volsize, a filesystem's refquota; 0 when unset. */
        long size();

        /** What a new size rounds up to: a zvol's volblocksize, 1 for a filesystem. */
        long granularity();
    }

    /** @param properties what a lookup reads of a dataset, {@value #MANAGED_PROPERTY} included */
    ZfsBackend(BackendConfig config, BackendKind kind, String kindName, ProcessRunner runner, Duration commandTimeout,
               InstallationId installation, String properties) {
        if (config.kind() != kind) {
            throw new IllegalArgumentException("backend " + config.name() + " is not a " + kindName + " backend: " + config.kind());
        }
        this.config = config;
        this.parent = config.parent().isEmpty() ? config.pool() : config.pool() + "/" + config.parent();
        this.owner = installation.value();
        this.zfs = new Zfs(runner, commandTimeout, parent);
        this.commands = new ZfsSnapshotCommands(runner, commandTimeout, parent);
        this.properties = properties;
        Layout layout = new Layout();
        this.snapshots = new ZfsSnapshots(zfs, commands, parent, owner, layout);
        this.clones = new ZfsClones(zfs, commands, snapshots, layout, parent, owner, config.name(), BackgroundJobs.CALL_WAIT);
    }

    // --- what the subclass answers ---------------------------------------------------------------------

    /** "zvol" or "dataset", for log lines and messages. */
    abstract String noun();

    /** The dataset as {@code zfs get} of the lookup's properties describes it. */
    abstract D parse(String dataset, Map<String, Property> properties);

    /** The volume as a call returns it: its device found, or its mount checked. */
    abstract BackendVolume usable(VolumeId id, D dataset);

    /** These properties of every dataset of the backend's type directly below the parent; none without the parent. */
    abstract Map<String, Map<String, Property>> ofParent(String properties);

    /** Checks the volume options of a create; a refused key is INVALID. */
    abstract void checkOptions(Map<String, String> options);

    /** Sets an owned volume's size to {@code size}, larger than it is. */
    abstract void resize(VolumeId id, ByteSize size);

    /** {@code zfs destroy} of the dataset, retried while busy; still busy past that, FAILED. */
    abstract ZfsSnapshotCommands.Destroyed destroy(D dataset);

    /** Destroys a hidden dataset as {@link #destroy} does; throws FAILED while busy. */
    abstract ZfsSnapshotCommands.Destroyed destroyHidden(String dataset);

    /** Renames {@code from} (a complete copy, or a deleted volume to hide) to {@code to}. */
    abstract void rename(String from, String to);

    /** See {@link ZfsLayout#properties}. */
    abstract List<String> cloneProperties(ByteSize size);

    /** See {@link ZfsLayout#sizedByProperties}. */
    abstract boolean sizedByProperties();

    /** Sets the size of {@code dataset}, a clone or copy perhaps not yet under its volume's name. */
    abstract void growClone(String dataset, ByteSize size);

    /** A made clone or copy of this size as a call returns it. */
    abstract BackendVolume usableClone(VolumeId id, long size);

    /** What an adoption reads of a dataset: the lookup's properties, {@code type}, and what {@link #user} needs. */
    abstract String adoptionProperties();

    /** Why the volume of this type and size cannot be adopted as it is (a dataset without refquota); empty when it can. */
    abstract Optional<String> unsized(D dataset);

    /** What uses the volume now, for an adoption's IN_USE (see the subclass); empty when nothing is seen. */
    abstract Optional<String> user(VolumeId id, D dataset, Map<String, Property> properties, KernelExports exports);

    /** An owned (or just marked) volume as an adoption returns it: as {@link #find} does, a dataset mounted first as create does. */
    abstract BackendVolume adopted(VolumeId id, D dataset);

    // --- the port --------------------------------------------------------------------------------------

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public Optional<BackendVolume> find(VolumeId id) {
        return lookup(id).filter(this::owns).map(d -> usable(id, d));
    }

    @Override
    public boolean exists(VolumeId id) {
        return lookup(id).filter(this::owns).isPresent();
    }

    /**
     * The dataset {@code <parent>/<id>}, read with one {@code zfs get} and checked in this order: of the backend's type,
     * else NOT_FOUND saying what it is; no {@value #MANAGED_PROPERTY} of another installation (set locally or
     * inherited), else FOREIGN; sized ({@link #unsized}) and at least {@code minSize}, else OUT_OF_RANGE; ours already
     * (set locally to this installation's id): returned ({@link #adopted}); not in use ({@link #user}), else IN_USE.
     * Then one {@code zfs set} of the mark, locally (a crash leaves it unmarked or marked: the retry adopts or returns it),
     * and the volume is returned as {@link #adopted} makes it. Nothing else is set: a zvol keeps its volmode, a dataset
     * its snapdir and sharenfs (which is off: any other value is IN_USE).
     */
    @Override
    public BackendVolume adopt(VolumeId id, ByteSize minSize, KernelExports exports) {
        String dataset = zfs.dataset(id);
        Map<String, Property> p = zfs.properties(id, adoptionProperties())
                .orElseThrow(() -> new BackendException(Kind.NOT_FOUND, "no dataset named " + dataset + " exists"));
        D d = parse(dataset, p);
        if (!d.ofType()) {
            throw new BackendException(Kind.NOT_FOUND, dataset + " is a ZFS " + p.getOrDefault("type", Property.NONE).value()
                    + ", not a " + noun() + ": backend " + config.name() + " cannot adopt it");
        }
        Property mark = p.getOrDefault(MANAGED_PROPERTY, Property.NONE);
        if (!mark.value().equals(ZfsOutput.UNSET) && !mark.value().equals(owner)) {
            throw new BackendException(Kind.FOREIGN, "refusing to adopt " + dataset + ": its " + MANAGED_PROPERTY + " is " + mark.value()
                    + " (" + mark.source() + "), another installation's (this installation's: " + owner + ")");
        }
        Optional<String> unsized = unsized(d);
        if (unsized.isPresent()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "refusing to adopt " + dataset + ": " + unsized.get());
        }
        if (d.size() < minSize.bytes()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " is " + ByteSize.of(d.size()) + ", smaller than the "
                    + minSize + " asked for");
        }
        if (owns(d)) {
            return adopted(id, d);
        }
        Optional<String> user = user(id, d, p, exports);
        if (user.isPresent()) {
            throw new BackendException(Kind.IN_USE, "refusing to adopt " + dataset + ": " + user.get());
        }
        zfs.setUserProperty(id, MANAGED_PROPERTY, owner);
        LOG.info(() -> "adopted " + noun() + " " + dataset + " (" + ByteSize.of(d.size()) + ") for backend " + config.name());
        return adopted(id, d);
    }

    /** One {@code zfs get} of the parent's datasets for all of them; each is then made usable as {@link #find} does. */
    @Override
    public Map<VolumeId, BackendVolume> findAll(Collection<VolumeId> ids) {
        Map<String, Map<String, Property>> rows = ofParent(properties);
        Map<VolumeId, BackendVolume> found = new LinkedHashMap<>();
        for (VolumeId id : ids) {
            String dataset = zfs.dataset(id);
            Map<String, Property> row = rows.get(dataset);
            if (row != null) {
                D d = parse(dataset, row);
                if (owns(d)) {
                    found.put(id, usable(id, d));
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
        return lookup(id).filter(Dataset::ofType).flatMap(d -> {
            try {
                return d.mark().isEmpty() ? Optional.empty() : Optional.of(InstallationId.of(d.mark()));
            } catch (InvalidValueException e) {
                return Optional.empty();
            }
        });
    }

    /** Never shrinks: {@code zfs set volsize} would, silently, so a smaller size is refused before any command. */
    @Override
    public ByteSize expand(VolumeId id, ByteSize required) {
        D d = lookup(id).filter(this::owns)
                .orElseThrow(() -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist below " + parent));
        ByteSize rounded = BackendException.roundUp(required, d.granularity(), "the volblocksize");
        if (rounded.bytes() == d.size()) {
            return rounded;
        }
        if (rounded.bytes() < d.size()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " is " + ByteSize.of(d.size()) + "; " + required
                    + " would shrink it, and volumes never shrink");
        }
        resize(id, rounded);
        LOG.info(() -> "grew " + noun() + " " + d.dataset() + " from " + ByteSize.of(d.size()) + " to " + rounded);
        return rounded;
    }

    /** Destroys the volume, or hides it while snapshots depend on it; a copy onto a missing one is abandoned. */
    @Override
    public void delete(VolumeId id) {
        String dataset = zfs.dataset(id);
        Optional<D> found = lookup(id);
        if (found.isEmpty()) {
            clones.abandon(id); // a copy onto it not finished yet: stopped, its partial receive destroyed
            zfs.space(); // "does not exist" also when the pool is not imported: that is no proof of deletion
            return;
        }
        if (!owns(found.get())) {
            throw new BackendException(Kind.FAILED, "refusing to destroy " + dataset + ": " + ownership(found.get())
                    + ", so this installation did not create it");
        }
        if (destroy(found.get()) == ZfsSnapshotCommands.Destroyed.HAS_DEPENDENTS) {
            String hidden = snapshots.hidden(id);
            hide(dataset, hidden);
            LOG.info(() -> noun() + " " + dataset + " has snapshots: hidden as " + hidden + " until nothing depends on it");
        } else {
            LOG.info(() -> "destroyed " + noun() + " " + dataset);
        }
        reapHidden();
    }

    /** Renames a deleted volume that snapshots depend on to its hidden name. */
    void hide(String dataset, String hidden) {
        rename(dataset, hidden);
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
    public Capacity capacity() {
        Zfs.Space space = zfs.space();
        return new Capacity(ByteSize.of(space.total()), ByteSize.of(space.available()));
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

    /** A restore or clone ({@link ZfsClones}) once the options are checked as a create checks them. */
    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool,
                                VolumeSource source) {
        checkOptions(options);
        return clones.create(id, size, source);
    }

    // --- helpers ---------------------------------------------------------------------------------------

    /** The volume's dataset, whoever made it; empty when it does not exist. */
    Optional<D> lookup(VolumeId id) {
        String dataset = zfs.dataset(id);
        return zfs.properties(id, properties).map(p -> parse(dataset, p));
    }

    /** A volume of this installation: of the backend's type, sized, and marked with its id, locally. */
    boolean owns(D d) {
        return d.ofType() && d.size() > 0 && d.mark().equals(owner);
    }

    /** Why {@code d} is or is not this installation's, for a message. */
    String ownership(D d) {
        return (d.mark().isEmpty() ? "it has no " + MANAGED_PROPERTY + " set locally" : "its " + MANAGED_PROPERTY + " is "
                + d.mark()) + " (this installation's: " + owner + ")";
    }

    /** A name below the parent that is a volume's: neither hidden nor being received. */
    boolean volumeName(String name) {
        return name.startsWith(parent + "/") && !name.contains(ZfsSnapshots.HIDDEN) && !name.endsWith(ZfsSnapshots.RECEIVING);
    }

    /** The layout {@link ZfsSnapshots} and {@link ZfsClones} share, from this backend's answers. */
    private final class Layout implements ZfsLayout {
        @Override
        public String noun() {
            return ZfsBackend.this.noun();
        }

        @Override
        public Optional<Own> own(VolumeId id) {
            return lookup(id).filter(ZfsBackend.this::owns).map(d -> new Own(d.size(), d.granularity()));
        }

        @Override
        public Optional<Made> made(VolumeId id) {
            String dataset = zfs.dataset(id);
            return zfs.properties(id, properties + "," + ZfsSnapshots.CONTENT_PROPERTY).map(p -> {
                D d = parse(dataset, p);
                return new Made(owns(d), d.size(), d.granularity(),
                        p.getOrDefault(ZfsSnapshots.CONTENT_PROPERTY, Property.NONE).localValue(), ownership(d));
            });
        }

        @Override
        public List<String> properties(ByteSize size) {
            return cloneProperties(size);
        }

        @Override
        public boolean sizedByProperties() {
            return ZfsBackend.this.sizedByProperties();
        }

        @Override
        public void grow(String dataset, ByteSize size) {
            growClone(dataset, size);
        }

        @Override
        public void rename(String from, String to) {
            ZfsBackend.this.rename(from, to);
        }

        @Override
        public BackendVolume usable(VolumeId id, long size) {
            return usableClone(id, size);
        }

        @Override
        public Map<String, Map<String, Property>> ofParent(String properties) {
            return ZfsBackend.this.ofParent(properties);
        }

        @Override
        public ZfsSnapshotCommands.Destroyed destroyHidden(String dataset) {
            try {
                return ZfsBackend.this.destroyHidden(dataset);
            } catch (BackendException stillBusy) {
                return ZfsSnapshotCommands.Destroyed.BUSY; // left for the next delete or start-up
            }
        }
    }
}
