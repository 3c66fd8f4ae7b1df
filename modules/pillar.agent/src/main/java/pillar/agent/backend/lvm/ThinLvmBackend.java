package pillar.agent.backend.lvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendProblem;
import pillar.agent.backend.BackendSnapshot;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.Creation;
import pillar.agent.backend.DeviceWait;
import pillar.agent.backend.PoolHealth;
import pillar.agent.backend.Texts;
import pillar.agent.backend.VolumeSource;
import pillar.agent.backend.lvm.LvmReport.Lv;
import pillar.agent.backend.lvm.LvmReport.ThinPool;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.SnapshotId;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.ProcessRunner;

/**
 * Thin LVs in one thin pool ({@code lvm-thin}, {@link LvmBackend}), with thin snapshots ({@link LvmSnapshots}).
 *
 * <p>No remanence: a thin LV reads unprovisioned blocks as zeroes only when its pool zeroes new chunks
 * ({@code lvs -o zero}); a pool that does not is reported by {@link #problem()} and refused by a create unless
 * the create accepts it, read at each create (an operator's {@code lvchange --zero} counts at once).
 *
 * <p>Over-provisioning: the pool's thin LVs, snapshots and others' included, add up to at most the backend's
 * {@code over-provisioning-ratio} times the pool's data size; a create, restore, clone, snapshot or expand beyond
 * it is NO_SPACE and changes nothing, checked and made under one lock per pool ({@link ThinProvisioning}).
 */
public final class ThinLvmBackend extends LvmBackend {
    private static final Logger LOG = Logger.getLogger(ThinLvmBackend.class.getName());

    private final LvmSnapshots snapshots;
    private final ThinProvisioning provisioning;

    ThinLvmBackend(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
                   Duration deviceTimeout, InstallationId installation) {
        super(config, BackendKind.BACKEND_KIND_LVM_THIN, runner, devRoot, sysRoot, commandTimeout, deviceTimeout, installation);
        this.snapshots = new LvmSnapshots(config.parent(), installationTag);
        this.provisioning = new ThinProvisioning(lvm, config.parent(), config.overProvisioningRatio());
    }

    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool nonZeroing) {
        checkCreate(id, options);
        checkSize(size);
        return provisioning.admitting(() -> createThin(id, size, nonZeroing));
    }

    /**
     * A create within the pool's admission: one lvs of the group gives the pool's zeroing, what its thin LVs add
     * up to, and whether the volume exists; an existing one (a retried create) is adopted as it is, counted already.
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
            return existing(existing.get(), id, size);
        }
        ByteSize rounded = roundUp(size);
        if (!exists) {
            provisioning.check(figures, rounded.bytes(), "volume " + id + " of " + rounded);
        }
        return make(id, size, rounded);
    }

    /** The pool's data and metadata usage ({@code lvs -o data_percent,metadata_percent}). */
    @Override
    public PoolHealth health() {
        LvmReport.Usage usage = lvm.thinUsage();
        return PoolHealth.thin(new PoolHealth.ThinUsage(lvm.poolPath(), usage.dataPercent().doubleValue(),
                usage.metadataPercent().doubleValue()));
    }

    /** Checked against the over-provisioning limit within the pool's admission. */
    @Override
    void grow(VolumeId id, Lv lv, ByteSize rounded) {
        provisioning.admitting(() -> {
            provisioning.check(provisioning.figures(), rounded.bytes() - lv.size(), "volume " + id + " grown from "
                    + ByteSize.of(lv.size()) + " to " + rounded);
            lvm.extend(id, rounded);
            return rounded;
        });
    }

    /** What the pool's data area has free, but never beyond what the over-provisioning ratio leaves. */
    @Override
    public Capacity capacity() {
        ThinProvisioning.Figures figures = provisioning.figures();
        ThinPool pool = figures.pool();
        return new Capacity(ByteSize.of(pool.size()), ByteSize.of(Math.min(pool.free(), figures.room())));
    }

    /** A thin pool that does not zero new chunks: {@value BackendProblem#THIN_POOL_NOT_ZEROING}. */
    @Override
    public Optional<BackendProblem> problem() {
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

    @Override
    public boolean snapshots() {
        return true;
    }

    /**
     * {@code lvcreate -s} of the source's thin LV as {@code snap.<id>} ({@link LvmSnapshots}), left with LVM's
     * activation-skip flag and inactive: it is never exported, only restored from.
     */
    @Override
    public BackendSnapshot snapshot(SnapshotId id, VolumeId source) {
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
        return lvm.stamped(LvmSnapshots.name(id)).flatMap(snapshots::ours);
    }

    /** {@code lvremove} of the snapshot's LV; nothing depends on it (a restore is a thin LV LVM keeps when its origin goes). */
    @Override
    public void deleteSnapshot(SnapshotId id) {
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
        return lvm.stampedLvs().stream().map(snapshots::ours).flatMap(Optional::stream).toList();
    }

    /**
     * A restore or clone: a thin snapshot of the snapshot's or volume's LV named after the new volume, tagged as
     * {@link #create} tags one plus the request ({@link LvmSnapshots#CONTENT_TAG}), activated without the
     * activation-skip flag, and grown when asked larger. LINKED and DEFAULT are the same; INDEPENDENT is INVALID
     * (a thin snapshot shares its blocks). The new volume depends on nothing: any order of deletes works.
     */
    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool nonZeroing,
                                VolumeSource source) {
        checkCreate(id, options);
        if (source.mode() == VolumeSource.Mode.INDEPENDENT) {
            throw new BackendException(Kind.INVALID, "backend " + config.name() + " is an LVM thin pool: a volume made from a source"
                    + " is a thin snapshot, which shares its blocks with the source, so an INDEPENDENT copy cannot be made here"
                    + " (ask for DEFAULT or LINKED)");
        }
        checkSize(size);
        Optional<Lv> existing = lookup(id);
        ByteSize rounded = roundUp(size);
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
                        .ifPresent(lv -> extend(id, lv, rounded));
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
                extend(id, lv, rounded);
                return null;
            });
            return new BackendVolume(id, rounded, volume.device());
        }
        return volume;
    }

    /** lvextend of a new thin snapshot asked larger than its source, within the admission that made it. */
    private void extend(VolumeId id, Lv lv, ByteSize rounded) {
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
                originSize = lvm.stamped(origin).flatMap(snapshots::ours).orElseThrow(() -> source.missing(lvm.where())).size().bytes();
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

    @Override
    boolean inPlace(Lv lv) {
        return lv.pool().equals(config.parent());
    }

    /** A thin LV of this backend's pool; anything else is the wrong kind. */
    @Override
    Optional<String> wrongKind(Lv lv) {
        return lv.type() == LvTypes.THIN && inPlace(lv) ? Optional.empty()
                : Optional.of(LvTypes.describe(lv) + ", not a thin LV of thin pool " + config.parent());
    }

    @Override
    String placement() {
        return " in thin pool " + config.parent();
    }
}
