package pillar.agent.backend.lvm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendProblem;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.BackgroundJobs;
import pillar.agent.backend.BlockCopy;
import pillar.agent.backend.Creation;
import pillar.agent.backend.DeviceWait;
import pillar.agent.backend.PoolHealth;
import pillar.agent.backend.Texts;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.VolumeSource;
import pillar.agent.backend.lvm.LvmReport.Lv;
import pillar.agent.backend.lvm.LvmReport.ThinPool;
import pillar.agent.backend.lvm.LvmReport.Vg;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.CallBudget;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Logical volumes in an LVM volume group: linear LVs ({@code lvm}), or thin LVs in one thin pool
 * ({@code lvm-thin}). The LV is named after the volume ID, so {@code /dev/<vg>/<volume-id>} is its device.
 *
 * <p>Ownership: every LV this backend creates carries the tag {@value #TAG} and the tag
 * {@value #INSTALLATION_TAG}{@code <installation id>}; a linear backend owns only LVs with both tags
 * (its installation's) outside any thin pool, a thin backend only those in its pool. A linear and a
 * thin backend, and several installations, can share one volume group: any other LV with a volume's
 * name (another installation's included) is never adopted, grown or removed.
 *
 * <p>Sizes are rounded up to the volume group's extent size (LVM would do it anyway) before they are
 * compared, so a repeated create of the same request finds the same size.
 *
 * <p>No remanence: a new volume never shows bytes of a deleted one.
 * <ul>
 *   <li>Linear: a delete zeroes the whole LV and only then runs lvremove, so the extents go back to the
 *       group already zeroed. The zeroing runs in the background chunk by chunk, checkpointed in a tag of
 *       the LV ({@link LvmZeroing}): the delete and its retries answer BUSY with the progress until it is
 *       whole, at any size; a restart resumes it at its checkpoint; an interrupted delete keeps the LV, and
 *       no free extent ever holds a deleted volume's bytes; so an lvextend, which takes free extents too,
 *       needs nothing either. Zeroing at create would leave a crash between lvcreate and the zeroing with
 *       an LV that a retried create adopts unzeroed unless its state is marked, and would make every
 *       CreateVolume wait for it; a delete is waited for by nobody. An LV being zeroed is not adopted,
 *       grown nor copied onto (BUSY). Not covered: extents freed outside the driver (an operator's lvremove).
 *       {@code lvcreate --zero y} zeroes only the first 4 KiB and {@code --wipesignatures} only
 *       known signatures: both stay, so a node never finds a file system signature in a fresh LV.</li>
 *   <li>Thin: a thin LV reads unprovisioned blocks as zeroes only when its pool zeroes new chunks
 *       (LVM's default, {@code lvs -o zero}). A pool that does not is reported by {@link #problem()}
 *       ({@value BackendProblem#THIN_POOL_NOT_ZEROING}) and refused by a create unless the create accepts
 *       it; the setting is read at each create and each {@link #problem()} (an operator's
 *       {@code lvchange --zero} counts at once).</li>
 * </ul>
 *
 * <p>Volumes from a source: on a thin backend a thin snapshot ({@link LvmSnapshots}); on a linear one
 * only clones, each a block copy onto a new LV that relies on the zeroing on delete above to skip the
 * source's zero chunks, run in the background and resumable ({@link BackgroundJobs}; see
 * {@link #create(VolumeId, ByteSize, Map, NonZeroingPool, VolumeSource)}). {@link #close} stops those jobs.
 *
 * <p>Over-provisioning (thin): the thin LVs of the pool, snapshots and others' included, add up to at most the
 * backend's {@code over-provisioning-ratio} times the pool's data size (default 1: none). A create, restore, clone,
 * snapshot or expand beyond it is NO_SPACE (RESOURCE_EXHAUSTED) naming the figures, and changes nothing; it is
 * checked and made under one lock per pool ({@link ThinProvisioning}), so concurrent creates never jointly exceed
 * it; {@link #capacity()} reports at most what the ratio leaves.
 *
 * <p>Options: none. Every key is refused with INVALID_ARGUMENT; striping and RAID layouts are a
 * volume group decision of the operator, not a per-volume setting.
 *
 * <p>The commands themselves (arguments, deadlines, reports, failures) are {@link Lvm}'s; this class
 * keeps the policy: ownership, rounding, sizes, zeroing and the device waits.
 */
public final class LvmVolumeBackend implements VolumeBackend {
    /** The tag on every LV this driver creates ({@code lvs -o lv_tags}). */
    public static final String TAG = "pillar-csi";
    /** The prefix of the tag that names the installation an LV belongs to ({@link InstallationId}). */
    public static final String INSTALLATION_TAG = "pillar-csi.installation:";
    private static final Duration DEVICE_POLL = Duration.ofMillis(20);
    private static final Logger LOG = Logger.getLogger(LvmVolumeBackend.class.getName());

    private final BackendConfig config;
    private final Lvm lvm;
    private final Path devRoot;
    private final Duration deviceTimeout;
    private final boolean thin;
    private final String installationTag;
    private final LvmSnapshots snapshots;
    private final BlockCopy copier;
    private final BackgroundJobs jobs;
    private final LvmZeroing zeroer;
    private final Duration callWait;
    /** A thin backend's over-provisioning limit; null for a linear one. */
    private final ThinProvisioning provisioning;
    /** The volume group's extent size as the last report gave it; 0 until one did. */
    private volatile long extentSize;

    /**
     * @param config         an {@code lvm} or {@code lvm-thin} backend: the volume group, and the thin pool
     * @param devRoot        where LVM makes {@code <vg>/<lv>} ({@code /dev}, LVM's devices/dir)
     * @param sysRoot        sysfs ({@code /sys}): the NVMe-oF namespaces LVM must not scan ({@link LvmDeviceFilter})
     * @param commandTimeout the deadline of each lvm command
     * @param deviceTimeout  how long to wait for an LV's device node to appear
     */
    public LvmVolumeBackend(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
                            Duration deviceTimeout) {
        this(config, runner, devRoot, sysRoot, commandTimeout, deviceTimeout, InstallationId.EMBEDDED);
    }

    /** @param installation the installation whose LVs this backend owns and tags its new ones with */
    public LvmVolumeBackend(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
                            Duration deviceTimeout, InstallationId installation) {
        this(config, runner, devRoot, sysRoot, commandTimeout, deviceTimeout, installation, BlockCopy.DIRECT, System::nanoTime, BackgroundJobs.CALL_WAIT);
    }

    /**
     * @param devices  how a linear clone's copy opens the LVs' devices ({@link BlockCopy#DIRECT} on a host)
     * @param clock    the clock of the copy's checkpoints and progress
     * @param callWait how long a call waits for its background job ({@link BackgroundJobs#CALL_WAIT})
     */
    LvmVolumeBackend(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
                     Duration deviceTimeout, InstallationId installation, BlockCopy.Devices devices, LongSupplier clock,
                     Duration callWait) {
        if (config.kind() != BackendKind.BACKEND_KIND_LVM_LINEAR && config.kind() != BackendKind.BACKEND_KIND_LVM_THIN) {
            throw new IllegalArgumentException("backend " + config.name() + " is not an lvm backend: " + config.kind());
        }
        this.config = config;
        this.lvm = new Lvm(runner, devRoot, sysRoot, commandTimeout, config.pool(), config.parent());
        this.devRoot = devRoot;
        this.deviceTimeout = deviceTimeout;
        this.thin = config.kind() == BackendKind.BACKEND_KIND_LVM_THIN;
        this.installationTag = INSTALLATION_TAG + installation.value();
        this.snapshots = new LvmSnapshots(config.parent(), installationTag);
        this.copier = new BlockCopy(devices, clock);
        this.jobs = new BackgroundJobs(config.name(), clock);
        this.zeroer = new LvmZeroing(lvm, new DeviceZeroing(runner, commandTimeout), jobs, devices, clock, callWait);
        this.callWait = callWait;
        this.provisioning = thin ? new ThinProvisioning(lvm, config.parent(), config.overProvisioningRatio()) : null;
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool nonZeroing) {
        checkOptions(options);
        Lvm.checkName(id);
        if (size.bytes() <= 0) {
            throw new BackendException(Kind.OUT_OF_RANGE, "a volume needs a size above 0 bytes");
        }
        if (thin) {
            return provisioning.admitting(() -> createThin(id, size, nonZeroing));
        }
        return make(id, size, roundUp(size, extentSize()));
    }

    /**
     * A thin create within the pool's admission ({@link ThinProvisioning}): one lvs of the group gives the
     * pool's zeroing, what its thin LVs add up to, and whether the volume exists; an existing one (a retried
     * create) is adopted as it is, counted already.
     */
    private BackendVolume createThin(VolumeId id, ByteSize size, NonZeroingPool nonZeroing) {
        ThinProvisioning.Figures figures = provisioning.figures();
        boolean exists = figures.names().contains(id.value());
        if (nonZeroing == NonZeroingPool.REFUSE && !figures.pool().zeroing()) {
            // a volume made while the pool still zeroed is not refused on a retried create
            Optional<Lv> existing = exists ? lookup(id).filter(this::owns) : Optional.empty();
            if (existing.isEmpty()) {
                throw new BackendException(Kind.UNAVAILABLE, notZeroing() + "; refusing to create " + id);
            }
            return adopt(existing.get(), id, size);
        }
        ByteSize rounded = roundUp(size, extentSize());
        if (!exists) {
            provisioning.check(figures, rounded.bytes(), "volume " + id + " of " + rounded);
        }
        return make(id, size, rounded);
    }

    /**
     * lvcreate first: it refuses an existing name, and only then is the existing LV read (one command
     * for a new linear volume, where listing first cost an lvs and a vgs every time).
     */
    private BackendVolume make(VolumeId id, ByteSize size, ByteSize rounded) {
        long created = rounded.bytes();
        switch (lvm.create(id, rounded, List.of(TAG, installationTag))) {
            case Creation.NameTaken taken -> {
                return adopt(lookup(id).orElseThrow(() -> BackendException.failed("lvcreate says " + id + " exists, lvs does not show it",
                        taken.cause())), id, size);
            }
            case Creation.NoRoom full -> throw noSpace(id, rounded, full.cause());
            case Creation.Made made -> {
                if (made.rounded()) {
                    // the extent size changed since it was learnt: LVM rounded again, so the LV says what it is
                    created = lookup(id).orElseThrow(() -> new BackendException(Kind.FAILED, "lvcreate made " + id
                            + " but lvs does not show it")).size();
                }
            }
        }
        long bytes = created;
        LOG.info(() -> "created " + lvm.path(id) + (thin ? " in thin pool " + config.parent() : "") + " of " + ByteSize.of(bytes));
        return new BackendVolume(id, ByteSize.of(bytes), awaitNode(id, devRoot.resolve(config.pool()).resolve(id.value())));
    }

    /** lvcreate failed for space: beyond the whole group is OUT_OF_RANGE (never fits), else NO_SPACE. */
    private BackendException noSpace(VolumeId id, ByteSize rounded, CommandFailedException e) {
        if (!thin) {
            Vg vg = volumeGroup();
            if (rounded.bytes() > vg.size()) {
                return new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " of " + rounded + " is larger than volume group "
                        + config.pool() + " (" + ByteSize.of(vg.size()) + ")", e);
            }
        }
        return new BackendException(Kind.NO_SPACE, lvm.where() + " has no room for " + rounded + ": " + Texts.oneLine(e.stderr()), e);
    }

    @Override
    public Optional<BackendVolume> find(VolumeId id) {
        return lookup(id).filter(this::owns).map(lv -> usable(id, lv));
    }

    @Override
    public boolean exists(VolumeId id) {
        return lookup(id).filter(this::owns).isPresent();
    }

    /** One {@code lvs} of the volume group for all of them; each is then made usable as {@link #find} does. */
    @Override
    public Map<VolumeId, BackendVolume> findAll(Collection<VolumeId> ids) {
        Map<String, Lv> byName = new HashMap<>();
        for (Lv lv : lvm.lvs()) {
            extentSize = lv.extentSize();
            byName.putIfAbsent(lv.name(), lv);
        }
        Map<VolumeId, BackendVolume> found = new LinkedHashMap<>();
        for (VolumeId id : ids) {
            Lv lv = byName.get(id.value());
            if (lv != null && owns(lv)) {
                found.put(id, usable(id, lv));
            }
        }
        return found;
    }

    /** A thin backend: its pool's data and metadata usage ({@code lvs -o data_percent,metadata_percent}); linear: nothing. */
    @Override
    public PoolHealth health() {
        if (!thin) {
            return PoolHealth.NONE;
        }
        LvmReport.Usage usage = lvm.thinUsage();
        return PoolHealth.thin(new PoolHealth.ThinUsage(lvm.poolPath(), usage.dataPercent().doubleValue(),
                usage.metadataPercent().doubleValue()));
    }

    @Override
    public Optional<InstallationId> owner(VolumeId id) {
        return lookup(id).filter(this::ofThisBackend).flatMap(lv -> lv.tags().stream().filter(t -> t.startsWith(INSTALLATION_TAG))
                .map(t -> t.substring(INSTALLATION_TAG.length())).findFirst()).flatMap(LvmVolumeBackend::installation);
    }

    private static Optional<InstallationId> installation(String value) {
        try {
            return Optional.of(InstallationId.of(value));
        } catch (InvalidValueException e) {
            return Optional.empty();
        }
    }

    @Override
    public ByteSize expand(VolumeId id, ByteSize required) {
        refuseWhileCopying(id, "resized");
        Lv lv = lookup(id).filter(this::owns)
                .orElseThrow(() -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist in " + lvm.where()));
        if (LvmZeroing.deleting(lv)) {
            throw LvmZeroing.refusal(id, lv, "resized");
        }
        ByteSize rounded = roundUp(required, lv.extentSize());
        if (rounded.bytes() == lv.size()) {
            return rounded;
        }
        holdForInterruptedClones(id, lv, "resized");
        if (rounded.bytes() < lv.size()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " is " + ByteSize.of(lv.size()) + "; " + required
                    + " would shrink it, and volumes never shrink");
        }
        // a multiple of the extent size lvs just reported: lvextend makes exactly this size
        if (thin) {
            provisioning.admitting(() -> {
                provisioning.check(provisioning.figures(), rounded.bytes() - lv.size(), "volume " + id + " grown from "
                        + ByteSize.of(lv.size()) + " to " + rounded);
                lvm.extend(id, rounded);
                return rounded;
            });
        } else {
            lvm.extend(id, rounded);
        }
        LOG.info(() -> "grew " + lvm.path(id) + " from " + ByteSize.of(lv.size()) + " to " + rounded);
        return rounded;
    }

    @Override
    public void delete(VolumeId id) {
        boolean copying = jobs.onto(id).filter(job -> job.source != null).isPresent(); // a zeroing job goes on
        if (copying && !jobs.cancel(id)) {
            throw new BackendException(Kind.BUSY, "the copy onto " + lvm.path(id) + " did not stop within "
                    + BackgroundJobs.STOP_WAIT.toSeconds() + " s of its cancel (a device not answering?); the delete is retried");
        }
        jobs.readingFrom(id).ifPresent(copy -> {
            throw new BackendException(Kind.BUSY, "volume " + id + " is the source of a clone being copied (" + copy.describe()
                    + "): it cannot be deleted before that copy is finished (or the clone " + copy.volume + " is deleted); retry");
        });
        Optional<Lv> lv = lookup(id);
        if (lv.isEmpty()) {
            return;
        }
        if (!owns(lv.get())) {
            throw new BackendException(Kind.FAILED, "refusing to remove " + lvm.path(id) + ": it is not a volume of backend "
                    + config.name() + " (" + ownership(lv.get()) + ")");
        }
        if (!thin) {
            holdForInterruptedClones(id, lv.get(), "deleted");
            zeroer.zeroed(id, lv.get(), usable(id, lv.get()).device());
        }
        DeviceWait.whileBusy(deviceTimeout, () -> lvm.remove(id));
        LOG.info(() -> "removed " + lvm.path(id));
    }

    @Override
    public List<BackendVolume> list() {
        List<Lv> lvs = lvm.lvs();
        List<BackendVolume> volumes = new ArrayList<>();
        for (Lv lv : lvs) {
            extentSize = lv.extentSize();
            if (!owns(lv) || LvmSnapshots.isSnapshotName(lv.name())) {
                continue;
            }
            try {
                volumes.add(new BackendVolume(VolumeId.of(lv.name()), ByteSize.of(lv.size()), Path.of(lv.path())));
            } catch (InvalidValueException e) {
                LOG.warning(() -> "ignoring LV " + config.pool() + "/" + lv.name() + ": it carries the tag " + TAG
                        + " but its name is not a volume ID");
            }
        }
        return volumes;
    }

    @Override
    public Capacity capacity() {
        if (!thin) {
            Vg vg = volumeGroup();
            return new Capacity(ByteSize.of(vg.size()), ByteSize.of(vg.free()));
        }
        // what the pool's data area has free, but never beyond what the over-provisioning ratio leaves
        ThinProvisioning.Figures figures = provisioning.figures();
        ThinPool pool = figures.pool();
        return new Capacity(ByteSize.of(pool.size()), ByteSize.of(Math.min(pool.free(), figures.room())));
    }

    /** A thin pool that does not zero new chunks: {@value BackendProblem#THIN_POOL_NOT_ZEROING}. */
    @Override
    public Optional<BackendProblem> problem() {
        if (!thin) {
            return Optional.empty();
        }
        try {
            return lvm.thinPool().zeroing() ? Optional.empty()
                    : Optional.of(new BackendProblem(BackendProblem.THIN_POOL_NOT_ZEROING, notZeroing()));
        } catch (BackendException e) {
            LOG.log(Level.FINE, "no problem reported for " + lvm.where() + " (GetCapacity reports it unusable)", e);
            return Optional.empty();
        }
    }

    private String notZeroing() {
        String pool = lvm.poolPath();
        return "thin pool " + pool + " does not zero new chunks, so a new volume could show bytes of a deleted one: turn"
                + " zeroing on with 'lvchange --zero y " + pool + "', or accept it explicitly on the PillarStore";
    }

    // --- snapshots (thin only) -------------------------------------------------------------------------

    /** A thin backend: thin snapshots; a linear one cannot take any. */
    @Override
    public boolean snapshots() {
        return thin;
    }

    /**
     * {@code lvcreate -s} of the source's thin LV as {@code snap.<id>} ({@link LvmSnapshots}), left with
     * LVM's activation-skip flag and inactive: it is never exported, only restored from. Its size is the
     * source's then, its creation time LVM's {@code lv_time}.
     */
    @Override
    public BackendSnapshot snapshot(SnapshotId id, VolumeId source) {
        requireThin("take snapshots");
        String name = LvmSnapshots.name(id);
        Optional<LvmReport.Stamped> existing = lvm.stamped(name);
        if (existing.isEmpty()) {
            Lv origin = lookup(source).filter(this::owns).orElseThrow(() -> new BackendException(Kind.NOT_FOUND, "volume " + source
                    + " does not exist in " + lvm.where()));
            provisioning.admitting(() -> {
                ThinProvisioning.Figures figures = provisioning.figures();
                if (!figures.names().contains(name)) {
                    provisioning.check(figures, origin.size(), "snapshot " + id + " of " + ByteSize.of(origin.size()) + " (a snapshot"
                            + " counts its volume's size)");
                }
                switch (lvm.thinSnapshot(source.value(), name, snapshots.tags(source), false)) {
                    case Creation.NoRoom full -> throw new BackendException(Kind.NO_SPACE, lvm.where() + " has no room for snapshot " + id
                            + ": " + Texts.oneLine(full.cause().stderr()), full.cause());
                    case Creation.NameTaken taken -> LOG.fine(() -> lvm.path(name) + " was made meanwhile");
                    case Creation.Made made -> LOG.info(() -> "took snapshot " + lvm.path(name) + " of " + source);
                }
                return null;
            });
            existing = lvm.stamped(name);
        }
        LvmReport.Stamped lv = existing.orElseThrow(() -> new BackendException(Kind.FAILED, "lvcreate made " + lvm.path(name)
                + " but lvs does not show it"));
        BackendSnapshot found = snapshots.ours(lv).orElseThrow(() -> new BackendException(Kind.CONFLICT, "an LV named "
                + lvm.path(name) + " exists and is not snapshot " + id + " of backend " + config.name() + " (" + ownership(lv.lv()) + ")"));
        if (!found.source().equals(source)) {
            throw new BackendException(Kind.CONFLICT, "snapshot " + id + " already exists of volume " + found.source() + ", not of " + source);
        }
        tidy(name, lv.lv(), snapshots.tags(source));
        return found;
    }

    @Override
    public Optional<BackendSnapshot> findSnapshot(SnapshotId id) {
        return thin ? lvm.stamped(LvmSnapshots.name(id)).flatMap(snapshots::ours) : Optional.empty();
    }

    /**
     * {@code lvremove} of the snapshot's LV. Nothing depends on it: a thin snapshot of it (a restore)
     * is a thin LV of its own that LVM keeps when its origin goes.
     */
    @Override
    public void deleteSnapshot(SnapshotId id) {
        if (!thin) {
            return;
        }
        String name = LvmSnapshots.name(id);
        Optional<LvmReport.Stamped> lv = lvm.stamped(name);
        if (lv.isEmpty()) {
            return;
        }
        if (snapshots.ours(lv.get()).isEmpty()) {
            throw new BackendException(Kind.FAILED, "refusing to remove " + lvm.path(name) + ": it is not a snapshot of backend "
                    + config.name() + " (" + ownership(lv.get().lv()) + ")");
        }
        DeviceWait.whileBusy(deviceTimeout, () -> lvm.remove(name));
        LOG.info(() -> "removed snapshot " + lvm.path(name));
    }

    @Override
    public List<BackendSnapshot> listSnapshots() {
        return thin ? lvm.stampedLvs().stream().map(snapshots::ours).flatMap(Optional::stream).toList() : List.of();
    }

    /**
     * A restore or clone: a thin snapshot of the snapshot's or volume's LV named after the new volume,
     * tagged as {@link #create} tags one plus the request ({@link LvmSnapshots#CONTENT_TAG}), activated
     * without the activation-skip flag ({@code -kn}), and grown with lvextend when asked larger.
     * LINKED and DEFAULT are the same; INDEPENDENT is refused (INVALID): a thin snapshot shares its
     * blocks with its source in the pool, which INDEPENDENT promises not to. The new volume depends on
     * nothing else: its source and the snapshot can be deleted in any order.
     */
    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool nonZeroing,
                                VolumeSource source) {
        checkOptions(options);
        Lvm.checkName(id);
        if (!thin) {
            return copyOf(id, size, source);
        }
        if (source.mode() == VolumeSource.Mode.INDEPENDENT) {
            throw new BackendException(Kind.INVALID, "backend " + config.name() + " is an LVM thin pool: a volume made from a source"
                    + " is a thin snapshot, which shares its blocks with the source, so an INDEPENDENT copy cannot be made here"
                    + " (ask for DEFAULT or LINKED)");
        }
        if (size.bytes() <= 0) {
            throw new BackendException(Kind.OUT_OF_RANGE, "a volume needs a size above 0 bytes");
        }
        Optional<Lv> existing = lookup(id);
        ByteSize rounded = roundUp(size, extentSize());
        String content = LvmSnapshots.contentTag(source, rounded);
        List<String> tags = List.of(TAG, installationTag, content);
        if (existing.isEmpty()) {
            String origin = origin(id, source, rounded);
            // admitted at its full size: the growth below, when asked larger than the source, is part of it
            existing = provisioning.admitting(() -> {
                ThinProvisioning.Figures figures = provisioning.figures();
                if (nonZeroing == NonZeroingPool.REFUSE && !figures.pool().zeroing()) {
                    throw new BackendException(Kind.UNAVAILABLE, notZeroing() + "; refusing to create " + id);
                }
                if (!figures.names().contains(id.value())) {
                    provisioning.check(figures, rounded.bytes(), "volume " + id + " of " + rounded);
                }
                boolean fresh = switch (lvm.thinSnapshot(origin, id.value(), tags, true)) {
                    case Creation.NoRoom full -> throw noSpace(id, rounded, full.cause());
                    case Creation.NameTaken taken -> {
                        LOG.fine(() -> lvm.path(id) + " was made meanwhile");
                        yield false; // not admitted here: a growth it needs is checked below, as a retry's is
                    }
                    case Creation.Made made -> {
                        LOG.info(() -> "made " + lvm.path(id) + " as a thin snapshot of " + lvm.path(origin));
                        yield true;
                    }
                };
                Optional<Lv> made = lookup(id);
                if (!fresh) {
                    return made;
                }
                made.filter(lv -> owns(lv) && lv.tags().contains(content) && lv.size() < rounded.bytes())
                        .ifPresent(lv -> grow(id, lv, rounded));
                return lookup(id);
            });
        }
        Lv lv = existing.orElseThrow(() -> new BackendException(Kind.FAILED, "lvcreate made " + id + " but lvs does not show it"));
        if (!owns(lv) || !lv.tags().contains(content)) {
            throw new BackendException(Kind.CONFLICT, "an LV named " + id + " already exists in volume group " + config.pool()
                    + " and was not made from " + content.substring(LvmSnapshots.CONTENT_TAG.length()) + " ("
                    + (owns(lv) ? LvmSnapshots.contents(lv) : ownership(lv)) + ")");
        }
        if (lv.size() > rounded.bytes()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(lv.size())
                    + ", not the " + rounded + " requested");
        }
        tidy(id.value(), lv, tags);
        BackendVolume volume = usable(id, lv);
        if (lv.size() < rounded.bytes()) {
            // a crash came between the snapshot and its growth: the growth is checked as an expand's is
            provisioning.admitting(() -> {
                provisioning.check(provisioning.figures(), rounded.bytes() - lv.size(), "volume " + id + " grown from "
                        + ByteSize.of(lv.size()) + " to " + rounded);
                grow(id, lv, rounded);
                return null;
            });
            return new BackendVolume(id, rounded, volume.device());
        }
        return volume;
    }

    /** lvextend of a new thin snapshot asked larger than its source, within the admission that made it. */
    private void grow(VolumeId id, Lv lv, ByteSize rounded) {
        lvm.extend(id, rounded);
        LOG.info(() -> "grew " + lvm.path(id) + " from " + ByteSize.of(lv.size()) + " to " + rounded);
    }

    /** The LV a new volume is a thin snapshot of: NOT_FOUND when missing, OUT_OF_RANGE when larger than {@code rounded}. */
    private String origin(VolumeId id, VolumeSource source, ByteSize rounded) {
        String origin;
        long originSize;
        switch (source) {
            case VolumeSource.FromSnapshot s -> {
                origin = LvmSnapshots.name(s.snapshot());
                originSize = lvm.stamped(origin).flatMap(snapshots::ours).orElseThrow(() -> source.missing(lvm.where()))
                        .size().bytes();
            }
            case VolumeSource.FromVolume v -> {
                origin = v.volume().value();
                originSize = lookup(v.volume()).filter(this::owns).orElseThrow(() -> source.missing(lvm.where())).size();
            }
        }
        if (rounded.bytes() < originSize) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " of " + rounded + " is smaller than its source ("
                    + ByteSize.of(originSize) + ")");
        }
        return origin;
    }

    /** Takes tags of ours off the LV that it should not carry (an origin's, should lvcreate -s copy them). */
    private void tidy(String name, Lv lv, List<String> wanted) {
        List<String> stray = LvmSnapshots.stray(lv, wanted);
        if (!stray.isEmpty()) {
            lvm.deleteTags(name, stray);
            LOG.info(() -> "took the tags " + stray + " off " + lvm.path(name));
        }
    }

    /**
     * A clone on a linear backend: a new LV of its own (made as {@link #create} makes one), onto which
     * {@link BlockCopy} copies the source's device in the background ({@link BackgroundJobs}); restores are
     * UNSUPPORTED (there are no snapshots) and LINKED is INVALID (linear LVs share no blocks). DEFAULT and
     * INDEPENDENT are the same full copy, recorded as {@code volume/<source>/independent/<bytes>}.
     *
     * <p>Steps, each retryable: lvcreate with {@value LvmSnapshots#COPYING_TAG}{@code <request>}; the copy,
     * started by the first call and run by a copy thread, skipping the source's zero chunks on a fresh LV
     * (a new linear LV reads zeroes everywhere, as every delete zeroed its LV before lvremove); its
     * checkpoints; a last fsync; then one lvchange swaps the copying and checkpoint tags for the content
     * tag. Only an LV with the content tag is ever returned; a plain create refuses an unfinished one
     * (CONFLICT). The call that starts the copy, and each retry, waits for it at most {@link BackgroundJobs#CALL_WAIT}
     * (within its budget) and then answers BUSY with the progress; a retry never starts a second copy.
     *
     * <p>Checkpoints are an LV tag, {@value LvmSnapshots#COPIED_TAG}{@code <bytes>}, swapped in one lvchange
     * (one metadata commit: atomic) after the target was fsynced up to there, at most every
     * {@link BlockCopy#CHECKPOINT_EVERY}. A tag rather than a file in the state directory: it lives and dies
     * with the LV it describes, so no checkpoint outlives its LV (a file left by a crash between the
     * lvremove and its own removal would make a new LV of the same name and request resume on bytes it
     * never had), and there is no second place to keep in step. After a restart the retry resumes at the
     * checkpoint (0 without one) in the mode that reads the target where the source has zeroes, since the
     * cut-short run may have written past its checkpoint; nothing is zeroed again.
     *
     * <p>The source is only read, and may be in use (exported, written): the copy is then
     * crash-consistent at best, as any block-level clone of a running volume. While the copy runs the
     * source refuses delete and expand with BUSY naming the copy (the source's lock, held for the start,
     * cannot be held by a thread that outlives the call); a tag on the source,
     * {@value LvmSnapshots#CLONING_TAG}{@code <clone>}, added before the copy starts and taken off once it is
     * whole, keeps that refusal across a restart or a failed copy for as long as the clone exists unfinished
     * ({@link #holdForInterruptedClones}). A delete of the clone cancels its copy first.
     */
    private BackendVolume copyOf(VolumeId id, ByteSize size, VolumeSource source) {
        VolumeSource.FromVolume from = switch (source) {
            case VolumeSource.FromSnapshot s -> throw new BackendException(Kind.UNSUPPORTED, "backend " + config.name()
                    + " is an LVM linear volume group: it has no snapshots to restore " + s.snapshot() + " from (use a thin pool)");
            case VolumeSource.FromVolume v -> v;
        };
        if (from.mode() == VolumeSource.Mode.LINKED) {
            throw new BackendException(Kind.INVALID, "backend " + config.name() + ": an LVM linear volume cannot share blocks: a clone"
                    + " is a full copy; ask for independent or default");
        }
        if (size.bytes() <= 0) {
            throw new BackendException(Kind.OUT_OF_RANGE, "a volume needs a size above 0 bytes");
        }
        ByteSize rounded = roundUp(size, extentSize());
        String request = LvmSnapshots.request(from, false, rounded);
        String copying = LvmSnapshots.COPYING_TAG + request;
        String content = LvmSnapshots.CONTENT_TAG + request;
        Optional<Lv> existing = lookup(id);
        boolean fresh = false;
        if (existing.isEmpty()) {
            Lv src = source(from, source);
            if (rounded.bytes() < src.size()) {
                throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " of " + rounded + " is smaller than its source ("
                        + ByteSize.of(src.size()) + ")");
            }
            switch (lvm.create(id, rounded, List.of(TAG, installationTag, copying))) {
                case Creation.NoRoom full -> throw noSpace(id, rounded, full.cause());
                case Creation.NameTaken taken -> LOG.fine(() -> lvm.path(id) + " was made meanwhile");
                case Creation.Made made -> fresh = true;
            }
            existing = lookup(id);
        }
        Lv lv = existing.orElseThrow(() -> new BackendException(Kind.FAILED, "lvcreate made " + id + " but lvs does not show it"));
        if (LvmZeroing.deleting(lv)) {
            throw LvmZeroing.refusal(id, lv, "copied onto");
        }
        boolean finished = lv.tags().contains(content) && !LvmSnapshots.unfinished(lv);
        if (!owns(lv) || !(finished || lv.tags().contains(copying))) {
            throw new BackendException(Kind.CONFLICT, "an LV named " + id + " already exists in volume group " + config.pool()
                    + " and was not made from " + request + " (" + (owns(lv) ? LvmSnapshots.contents(lv) : ownership(lv)) + ")");
        }
        if (lv.size() != rounded.bytes()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(lv.size())
                    + ", not the " + rounded + " requested");
        }
        BackendVolume target = usable(id, lv);
        if (finished) {
            // the copy tags the LV finished as its last step and leaves the registry just after: answer OK once it
            // has left, so that the OK frees the source at once (its delete and resize check the registry)
            jobs.onto(id).ifPresent(c -> c.await(CallBudget.cap(callWait)));
            return target;
        }
        BackgroundJobs.Job copy = jobs.onto(id).orElse(null);
        if (copy == null && !fresh && finished(id, content)) {
            return target; // the copy tagged it finished and left the registry since the lookup above
        }
        if (copy == null) {
            copy = startCopy(id, from, source, lv, target, fresh, copying, content);
        }
        jobs.answer(copy, callWait);
        return target;
    }

    /** Whether a copy onto {@code id} is in this agent's registry: running, waiting in line, or failed and not reported yet. */
    boolean copyRegistered(VolumeId id) {
        return jobs.onto(id).isPresent();
    }

    /**
     * Whether the LV is tagged a finished copy now: read again when no copy onto it is registered, since a
     * copy tags the LV finished, then leaves the registry, both possibly between a retry's lookup and its
     * look at the registry (which would otherwise start a second copy of a whole clone).
     */
    private boolean finished(VolumeId id, String content) {
        return lookup(id).filter(lv -> lv.tags().contains(content) && !LvmSnapshots.unfinished(lv)).isPresent();
    }

    /** The source of a clone: this backend's and whole; NOT_FOUND when missing, BUSY while it is itself being copied. */
    private Lv source(VolumeSource.FromVolume from, VolumeSource source) {
        Lv src = lookup(from.volume()).filter(this::owns).orElseThrow(() -> source.missing(lvm.where()));
        if (LvmSnapshots.unfinished(src)) {
            throw new BackendException(Kind.BUSY, "volume " + from.volume() + " is itself a clone whose copy is not finished ("
                    + LvmSnapshots.contents(src) + "): it can be cloned once its own CreateVolume answers OK; retry");
        }
        return src;
    }

    /** Starts the copy onto the unfinished LV: from 0 onto a fresh LV, else from its checkpoint reading the target. */
    private BackgroundJobs.Job startCopy(VolumeId id, VolumeSource.FromVolume from, VolumeSource source, Lv lv, BackendVolume target,
                                        boolean fresh, String copying, String content) {
        Lv src = source(from, source);
        if (src.size() > lv.size()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "source " + from.volume() + " grew to " + ByteSize.of(src.size())
                    + " while its copy onto " + id + " (" + ByteSize.of(lv.size()) + ") was interrupted: delete the clone and clone again");
        }
        List<String> checkpoints = LvmSnapshots.copiedTags(lv);
        long resume = fresh ? 0 : Math.min(LvmSnapshots.copied(lv), src.size());
        Path device = usable(from.volume(), src).device();
        String what = lvm.path(from.volume()) + " to " + lvm.path(id);
        String cloning = LvmSnapshots.CLONING_TAG + id.value();
        if (!src.tags().contains(cloning)) {
            lvm.changeTags(from.volume().value(), List.of(), List.of(cloning)); // held across a restart too
        }
        if (resume > 0) {
            LOG.info(() -> "resuming the copy of " + what + " at its checkpoint " + ByteSize.of(resume) + " of " + ByteSize.of(src.size()));
        }
        return jobs.start(id, from.volume(), "copying " + what, resume, src.size(), copy -> {
            List<String> previous = new ArrayList<>(checkpoints);
            BlockCopy.Result result = copier.copy(what, device, target.device(), resume, src.size(), fresh, new BlockCopy.Progress() {
                @Override
                public boolean stopped() {
                    return copy.stopping();
                }

                @Override
                public void reached(long done) {
                    copy.reached(done);
                }

                @Override
                public void checkpoint(long done) {
                    String tag = LvmSnapshots.COPIED_TAG + done;
                    if (!previous.contains(tag)) {
                        lvm.changeTags(id.value(), previous, List.of(tag));
                        previous.clear();
                        previous.add(tag);
                    }
                    copy.checkpointed(done);
                }
            });
            if (result.stopped()) {
                return false;
            }
            List<String> off = new ArrayList<>(previous);
            off.addFirst(copying);
            lvm.changeTags(id.value(), off, List.of(content));
            release(from.volume(), cloning);
            LOG.info(() -> "made " + lvm.path(id) + " of " + ByteSize.of(lv.size()) + " as a copy of " + lvm.path(from.volume()) + " ("
                    + ByteSize.of(result.written()) + " written, " + ByteSize.of(result.skipped()) + " of zeroes skipped"
                    + (resume > 0 ? ", resumed at " + ByteSize.of(resume) : "") + ")");
            return true;
        });
    }

    /** Takes the clone's hold off its source; a failure leaves a stale tag, which the source's next delete or expand drops. */
    private void release(VolumeId source, String cloning) {
        try {
            lvm.changeTags(source.value(), List.of(cloning), List.of());
        } catch (BackendException e) {
            LOG.log(Level.WARNING, "the clone's tag " + cloning + " stays on " + lvm.path(source) + " (its next delete or expand"
                    + " takes it off)", e);
        }
    }

    /**
     * The hold that outlives the process: a source tagged {@value LvmSnapshots#CLONING_TAG}{@code <clone>} whose
     * clone still exists, unfinished and copying from it, refuses to be deleted or resized (BUSY) even when no
     * copy runs (the agent restarted, or the copy failed; the clone's next CreateVolume resumes it). A tag whose clone is gone,
     * finished or of another source is stale: dropped, and the call goes on.
     */
    private void holdForInterruptedClones(VolumeId id, Lv lv, String what) {
        List<String> stale = new ArrayList<>();
        for (String tag : LvmSnapshots.cloningTags(lv)) {
            String clone = tag.substring(LvmSnapshots.CLONING_TAG.length());
            boolean held = lvm.lv(clone).filter(this::owns).map(c -> c.tags().stream().anyMatch(t -> t.startsWith(
                    LvmSnapshots.COPYING_TAG + "volume/" + id.value() + "/"))).orElse(false);
            if (held) {
                throw new BackendException(Kind.BUSY, "volume " + id + " cannot be " + what + ": it is the source of the clone " + clone
                        + ", whose copy was interrupted (a failure or an agent restart) and resumes when its CreateVolume is retried; finish or"
                        + " delete that clone first");
            }
            stale.add(tag);
        }
        if (!stale.isEmpty()) {
            lvm.changeTags(id.value(), stale, List.of());
            LOG.info(() -> "took the stale clone tags " + stale + " off " + lvm.path(id));
        }
    }

    /** A linear backend refuses to change a volume a copy reads from or writes to (BUSY, naming the copy). */
    private void refuseWhileCopying(VolumeId id, String what) {
        Optional<BackgroundJobs.Job> copy = jobs.readingFrom(id).or(() -> jobs.onto(id).filter(c -> c.failure().isEmpty()));
        copy.ifPresent(c -> {
            throw new BackendException(Kind.BUSY, "volume " + id + " cannot be " + what + " while " + c.describe() + "; retry once the"
                    + " copy is finished (the clone's CreateVolume answers OK)");
        });
    }

    /** Stops the clones' copies, each at a checkpoint its next CreateVolume resumes from. */
    @Override
    public void close() {
        jobs.close();
    }

    /** A linear backend refuses with UNSUPPORTED, naming its layout. */
    private void requireThin(String what) {
        if (!thin) {
            throw new BackendException(Kind.UNSUPPORTED, "backend " + config.name() + " is an LVM linear volume group: it cannot "
                    + what + " (use a thin pool)");
        }
    }

    // --- helpers ---------------------------------------------------------------------------------------

    /** The LV of this name in the volume group, whoever owns it; empty when it does not exist. Learns the extent size. */
    private Optional<Lv> lookup(VolumeId id) {
        Optional<Lv> lv = lvm.lv(id);
        lv.ifPresent(l -> extentSize = l.extentSize());
        return lv;
    }

    /** The volume group's report; learns the extent size. */
    private Vg volumeGroup() {
        Vg vg = lvm.volumeGroup();
        extentSize = vg.extentSize();
        return vg;
    }

    /** An existing LV for a create: ours and of the requested (rounded) size, or a conflict. */
    private BackendVolume adopt(Lv lv, VolumeId id, ByteSize requested) {
        if (!owns(lv)) {
            throw new BackendException(Kind.CONFLICT, "an LV named " + id + " already exists in volume group " + config.pool()
                    + " and is not a volume of backend " + config.name() + " (" + ownership(lv) + ")");
        }
        if (LvmZeroing.deleting(lv)) {
            throw LvmZeroing.refusal(id, lv, "created again");
        }
        if (LvmSnapshots.unfinished(lv)) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists as " + LvmSnapshots.contents(lv)
                    + ": retry that clone or delete it");
        }
        ByteSize rounded = roundUp(requested, lv.extentSize());
        if (lv.size() != rounded.bytes()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(lv.size())
                    + ", not the " + rounded + " requested");
        }
        return usable(id, lv);
    }

    /** The volume with its device, activating the LV first if it is inactive (e.g. after a reboot without udev). */
    private BackendVolume usable(VolumeId id, Lv lv) {
        if (lv.path().isEmpty()) {
            throw new BackendException(Kind.FAILED, "lvs reports no device path for " + lvm.path(id) + " (lv_attr " + lv.attr() + ")");
        }
        Path device = Path.of(lv.path());
        if (!lv.active()) {
            lvm.activate(id);
            LOG.info(() -> "activated " + lvm.path(id));
        }
        return new BackendVolume(id, ByteSize.of(lv.size()), awaitNode(id, device));
    }

    private Path awaitNode(VolumeId id, Path device) {
        return DeviceWait.await("LV " + lvm.path(id), deviceTimeout, DEVICE_POLL,
                "LVM makes the node itself when udev rules are off; is activation/udev_rules set for a host without udev?",
                () -> Files.exists(device) ? Optional.of(device) : Optional.empty());
    }

    /**
     * The extent size sizes are rounded to: learnt from any report of the group (a linear backend's
     * start-up capacity check gives it), else asked with vgs once. A stale value is caught by lvcreate's "Rounding up".
     */
    private long extentSize() {
        long known = extentSize;
        return known > 0 ? known : volumeGroup().extentSize();
    }

    private boolean owns(Lv lv) {
        return ofThisBackend(lv) && lv.tags().contains(installationTag);
    }

    /** A pillar-csi LV where this backend puts its own, of whichever installation. */
    private boolean ofThisBackend(Lv lv) {
        return lv.tags().contains(TAG) && (thin ? lv.pool().equals(config.parent()) : lv.pool().isEmpty());
    }

    private String ownership(Lv lv) {
        String tag = lv.tags().contains(TAG) ? "tag " + TAG : "no tag " + TAG;
        String installation = lv.tags().stream().filter(t -> t.startsWith(INSTALLATION_TAG)).findFirst()
                .map(t -> "installation " + t.substring(INSTALLATION_TAG.length()))
                .orElse("no installation tag") + " (this backend's: " + installationTag.substring(INSTALLATION_TAG.length()) + ")";
        return tag + ", " + installation + ", " + (lv.pool().isEmpty() ? "not thin" : "thin pool " + lv.pool());
    }

    private void checkOptions(Map<String, String> options) {
        if (!options.isEmpty()) {
            List<String> keys = options.keySet().stream().map(k -> k == null ? "null" : "'" + Texts.printable(k) + "'").sorted().toList();
            throw new BackendException(Kind.INVALID, "lvm backends take no volume options; refused " + keys);
        }
    }

    private static ByteSize roundUp(ByteSize size, long extentSize) {
        try {
            return size.roundUpTo(extentSize);
        } catch (InvalidValueException e) {
            throw new BackendException(Kind.OUT_OF_RANGE, size + " cannot be rounded up to the extent size " + extentSize, e);
        }
    }
}
