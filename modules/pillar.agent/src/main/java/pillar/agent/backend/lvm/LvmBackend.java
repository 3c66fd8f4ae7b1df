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
import java.util.logging.Logger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.BackgroundJobs;
import pillar.agent.backend.BlockCopy;
import pillar.agent.backend.Creation;
import pillar.agent.backend.DeviceWait;
import pillar.agent.backend.KernelExports;
import pillar.agent.backend.Texts;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.backend.lvm.LvmReport.Lv;
import pillar.agent.backend.lvm.LvmReport.Vg;
import pillar.agent.config.BackendConfig;
import pillar.agent.state.InstallationId;
import pillar.api.agent.v1.BackendKind;
import pillar.api.value.ByteSize;
import pillar.api.value.InvalidValueException;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * Logical volumes in an LVM volume group, each named after its volume ID ({@code /dev/<vg>/<volume-id>}): what
 * the linear ({@link LinearLvmBackend}) and thin ({@link ThinLvmBackend}) backends share. Every LV made here
 * carries the tags {@value #TAG} and {@value #INSTALLATION_TAG}{@code <installation id>}; a backend owns only
 * those in the place it puts its own (outside any thin pool, or in its pool), so backends and installations can
 * share a group: any other LV of a volume's name is never adopted, grown nor removed. Sizes are rounded up to the
 * group's extent size before they are compared. Options: none (striping and RAID are the volume group's). The
 * commands are {@link Lvm}'s; this class keeps the policy.
 */
public abstract sealed class LvmBackend implements VolumeBackend permits LinearLvmBackend, ThinLvmBackend {
    /** The tag on every LV this driver creates ({@code lvs -o lv_tags}). */
    public static final String TAG = "pillar-csi";
    /** The prefix of the tag that names the installation an LV belongs to ({@link InstallationId}). */
    public static final String INSTALLATION_TAG = "pillar-csi.installation:";
    private static final Duration DEVICE_POLL = Duration.ofMillis(20);
    private static final Logger LOG = Logger.getLogger(LvmBackend.class.getName());

    final BackendConfig config;
    final Lvm lvm;
    final Duration deviceTimeout;
    final String installationTag;
    private final Path devRoot;
    /** The volume group's extent size as the last report gave it; 0 until one did. */
    private volatile long extentSize;

    /**
     * @param devRoot        where LVM makes {@code <vg>/<lv>} ({@code /dev}, LVM's devices/dir)
     * @param sysRoot        sysfs ({@code /sys}): the NVMe-oF namespaces LVM must not scan ({@link LvmDeviceFilter})
     * @param commandTimeout the deadline of each lvm command
     * @param deviceTimeout  how long to wait for an LV's device node to appear
     * @param installation   the installation whose LVs this backend owns and tags its new ones with
     */
    LvmBackend(BackendConfig config, BackendKind kind, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
               Duration deviceTimeout, InstallationId installation) {
        if (config.kind() != kind) {
            throw new IllegalArgumentException("backend " + config.name() + " is not an lvm backend of kind " + kind + ": " + config.kind());
        }
        this.config = config;
        this.lvm = new Lvm(runner, devRoot, sysRoot, commandTimeout, config.pool(), config.parent());
        this.devRoot = devRoot;
        this.deviceTimeout = deviceTimeout;
        this.installationTag = INSTALLATION_TAG + installation.value();
    }

    /** The backend of an {@code lvm} or {@code lvm-thin} configuration, owning {@code installation}'s LVs. */
    public static LvmBackend of(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
                                Duration deviceTimeout, InstallationId installation) {
        return of(config, runner, devRoot, sysRoot, commandTimeout, deviceTimeout, installation, BlockCopy.DIRECT, System::nanoTime,
                BackgroundJobs.CALL_WAIT);
    }

    /** {@link #of(BackendConfig, ProcessRunner, Path, Path, Duration, Duration, InstallationId)} owning the embedded installation's. */
    public static LvmBackend of(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
                                Duration deviceTimeout) {
        return of(config, runner, devRoot, sysRoot, commandTimeout, deviceTimeout, InstallationId.EMBEDDED);
    }

    /** With a linear backend's copy devices, clock and call wait ({@link LinearLvmBackend}). */
    static LvmBackend of(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Duration commandTimeout,
                         Duration deviceTimeout, InstallationId installation, BlockCopy.Devices devices, LongSupplier clock,
                         Duration callWait) {
        return switch (config.kind()) {
            case BACKEND_KIND_LVM_LINEAR -> new LinearLvmBackend(config, runner, devRoot, sysRoot, commandTimeout, deviceTimeout,
                    installation, devices, clock, callWait);
            case BACKEND_KIND_LVM_THIN -> new ThinLvmBackend(config, runner, devRoot, sysRoot, commandTimeout, deviceTimeout, installation);
            default -> throw new IllegalArgumentException("backend " + config.name() + " is not an lvm backend: " + config.kind());
        };
    }

    // --- what the subclass answers ---------------------------------------------------------------------

    /** Whether the LV is where this backend puts its own: outside any thin pool, or in its pool. */
    abstract boolean inPlace(Lv lv);

    /** Where a new LV goes, for a log line: "" or " in thin pool P". */
    abstract String placement();

    /** What the LV is when it is not of the kind this backend holds ("a thin LV ..., not ..."); empty when it is. */
    abstract Optional<String> wrongKind(Lv lv);

    /** Grows the owned LV to {@code rounded}, a multiple of the extent size lvs just reported. */
    abstract void grow(VolumeId id, Lv lv, ByteSize rounded);

    /** Refuses (BUSY) to change a volume a clone still copies from; nothing by default. */
    void hold(VolumeId id, Lv lv, String what) {
    }

    /** What comes before the lvremove of an owned LV; nothing by default. */
    void beforeRemove(VolumeId id, Lv lv) {
    }

    /** lvcreate failed for space: NO_SPACE. */
    BackendException noSpace(VolumeId id, ByteSize rounded, CommandFailedException e) {
        return new BackendException(Kind.NO_SPACE, lvm.where() + " has no room for " + rounded + ": " + Texts.oneLine(e.stderr()), e);
    }

    // --- the port --------------------------------------------------------------------------------------

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public Optional<BackendVolume> find(VolumeId id) {
        return lookup(id).filter(this::owns).map(lv -> usable(id, lv));
    }

    @Override
    public boolean exists(VolumeId id) {
        return lookup(id).filter(this::owns).isPresent();
    }

    /**
     * The LV of that name in the group, checked in this order: of this backend's kind ({@link #wrongKind}), else
     * NOT_FOUND; no other installation's tag, nor {@value #TAG} without an installation tag, else FOREIGN; at least
     * {@code minSize}, else OUT_OF_RANGE; ours already: returned as {@link #find} returns it (BUSY while being deleted or
     * copied onto); no nvmet namespace on it and its device not open, else IN_USE. Open is {@code lv_attr}'s flag:
     * device-mapper counts every opener, so a mount, a process, a device stacked on it and an enabled nvmet namespace
     * all show. Then one {@code lvchange --addtag TAG --addtag INSTALLATION_TAG<id>} (one metadata commit: a crash
     * leaves it unmarked or marked, and the retry adopts or returns it), and the LV is activated as find does.
     */
    @Override
    public BackendVolume adopt(VolumeId id, ByteSize minSize, KernelExports exports) {
        Lvm.checkName(id);
        Lv lv = lookup(id).orElseThrow(() -> new BackendException(Kind.NOT_FOUND, "volume group " + config.pool() + " has no LV named " + id));
        Optional<String> wrong = wrongKind(lv);
        if (wrong.isPresent()) {
            throw new BackendException(Kind.NOT_FOUND, lvm.path(id) + " is " + wrong.get() + ": backend " + config.name() + " cannot adopt it");
        }
        Optional<String> foreign = foreignMark(lv);
        if (foreign.isPresent()) {
            throw new BackendException(Kind.FOREIGN, "refusing to adopt " + lvm.path(id) + ": " + foreign.get());
        }
        if (lv.size() < minSize.bytes()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " is " + ByteSize.of(lv.size()) + ", smaller than the "
                    + minSize + " asked for");
        }
        if (owns(lv)) {
            if (LvmZeroing.deleting(lv)) {
                throw LvmZeroing.refusal(id, lv, "adopted");
            }
            if (LvmSnapshots.unfinished(lv)) {
                throw new BackendException(Kind.BUSY, "volume " + id + " is " + LvmSnapshots.contents(lv) + ": retry once that clone is whole");
            }
            return usable(id, lv);
        }
        Optional<String> user = exports.device(Path.of(lv.path()));
        if (user.isEmpty() && lv.open()) {
            user = Optional.of("its device is open (lv_attr " + lv.attr() + "): mounted, held by a process or a device stacked on it,"
                    + " or exported by the kernel's NVMe-oF target");
        }
        if (user.isPresent()) {
            throw new BackendException(Kind.IN_USE, "refusing to adopt " + lvm.path(id) + ": " + user.get());
        }
        lvm.changeTags(id.value(), List.of(), List.of(TAG, installationTag));
        LOG.info(() -> "adopted " + lvm.path(id) + " (" + ByteSize.of(lv.size()) + ") for backend " + config.name());
        return usable(id, lv);
    }

    /** Why the LV is another installation's: another installation's tag, or {@value #TAG} without any; empty when it is not. */
    private Optional<String> foreignMark(Lv lv) {
        List<String> others = lv.tags().stream().filter(t -> t.startsWith(INSTALLATION_TAG) && !t.equals(installationTag)).toList();
        if (!others.isEmpty()) {
            return Optional.of("it carries another installation's tag " + others + " (this backend's: " + installationTag + ")");
        }
        if (lv.tags().contains(TAG) && lv.tags().stream().noneMatch(t -> t.startsWith(INSTALLATION_TAG))) {
            return Optional.of("it carries the tag " + TAG + " without an installation tag: a volume of another installation");
        }
        return Optional.empty();
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

    @Override
    public Optional<InstallationId> owner(VolumeId id) {
        return lookup(id).filter(this::ofThisBackend).flatMap(lv -> lv.tags().stream().filter(t -> t.startsWith(INSTALLATION_TAG))
                .map(t -> t.substring(INSTALLATION_TAG.length())).findFirst()).flatMap(LvmBackend::installation);
    }

    private static Optional<InstallationId> installation(String value) {
        try {
            return Optional.of(InstallationId.of(value));
        } catch (InvalidValueException e) {
            return Optional.empty();
        }
    }

    /** Never shrinks (OUT_OF_RANGE); an LV being zeroed for its delete is not grown (BUSY). */
    @Override
    public ByteSize expand(VolumeId id, ByteSize required) {
        Lv lv = lookup(id).filter(this::owns)
                .orElseThrow(() -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist in " + lvm.where()));
        if (LvmZeroing.deleting(lv)) {
            throw LvmZeroing.refusal(id, lv, "resized");
        }
        ByteSize rounded = roundUp(required, lv.extentSize());
        if (rounded.bytes() == lv.size()) {
            return rounded;
        }
        hold(id, lv, "resized");
        if (rounded.bytes() < lv.size()) {
            throw new BackendException(Kind.OUT_OF_RANGE, "volume " + id + " is " + ByteSize.of(lv.size()) + "; " + required
                    + " would shrink it, and volumes never shrink");
        }
        grow(id, lv, rounded);
        LOG.info(() -> "grew " + lvm.path(id) + " from " + ByteSize.of(lv.size()) + " to " + rounded);
        return rounded;
    }

    @Override
    public void delete(VolumeId id) {
        Optional<Lv> lv = lookup(id);
        if (lv.isEmpty()) {
            return;
        }
        if (!owns(lv.get())) {
            throw new BackendException(Kind.FAILED, "refusing to remove " + lvm.path(id) + ": it is not a volume of backend "
                    + config.name() + " (" + ownership(lv.get()) + ")");
        }
        beforeRemove(id, lv.get());
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

    // --- helpers ---------------------------------------------------------------------------------------

    /** What every create checks first: no options, a name LVM takes. */
    void checkCreate(VolumeId id, Map<String, String> options) {
        if (!options.isEmpty()) {
            List<String> keys = options.keySet().stream().map(k -> k == null ? "null" : "'" + Texts.printable(k) + "'").sorted().toList();
            throw new BackendException(Kind.INVALID, "lvm backends take no volume options; refused " + keys);
        }
        Lvm.checkName(id);
    }

    static void checkSize(ByteSize size) {
        if (size.bytes() <= 0) {
            throw new BackendException(Kind.OUT_OF_RANGE, "a volume needs a size above 0 bytes");
        }
    }

    /**
     * lvcreate first: it refuses an existing name, and only then is the existing LV read (one command for a new
     * linear volume).
     */
    BackendVolume make(VolumeId id, ByteSize size, ByteSize rounded) {
        long created = rounded.bytes();
        switch (lvm.create(id, rounded, List.of(TAG, installationTag))) {
            case Creation.NameTaken taken -> {
                return existing(lookup(id).orElseThrow(() -> BackendException.failed("lvcreate says " + id + " exists, lvs does not show it",
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
        LOG.info(() -> "created " + lvm.path(id) + placement() + " of " + ByteSize.of(bytes));
        return new BackendVolume(id, ByteSize.of(bytes), awaitNode(id, devRoot.resolve(config.pool()).resolve(id.value())));
    }

    /** The LV of this name in the volume group, whoever owns it; empty when it does not exist. Learns the extent size. */
    Optional<Lv> lookup(VolumeId id) {
        Optional<Lv> lv = lvm.lv(id);
        lv.ifPresent(l -> extentSize = l.extentSize());
        return lv;
    }

    /** The volume group's report; learns the extent size. */
    Vg volumeGroup() {
        Vg vg = lvm.volumeGroup();
        extentSize = vg.extentSize();
        return vg;
    }

    /** An existing LV for a create: ours and of the requested (rounded) size, or a conflict (an unmarked one too: see {@link #adopt}). */
    BackendVolume existing(Lv lv, VolumeId id, ByteSize requested) {
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
    BackendVolume usable(VolumeId id, Lv lv) {
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

    /** {@code size} rounded up to the extent size, learnt from any report of the group, else asked with vgs once. */
    ByteSize roundUp(ByteSize size) {
        long known = extentSize;
        return roundUp(size, known > 0 ? known : volumeGroup().extentSize());
    }

    static ByteSize roundUp(ByteSize size, long extentSize) {
        return BackendException.roundUp(size, extentSize, "the extent size");
    }

    boolean owns(Lv lv) {
        return ofThisBackend(lv) && lv.tags().contains(installationTag);
    }

    /** A pillar-csi LV where this backend puts its own, of whichever installation. */
    private boolean ofThisBackend(Lv lv) {
        return lv.tags().contains(TAG) && inPlace(lv);
    }

    String ownership(Lv lv) {
        String tag = lv.tags().contains(TAG) ? "tag " + TAG : "no tag " + TAG;
        String installation = lv.tags().stream().filter(t -> t.startsWith(INSTALLATION_TAG)).findFirst()
                .map(t -> "installation " + t.substring(INSTALLATION_TAG.length()))
                .orElse("no installation tag") + " (this backend's: " + installationTag.substring(INSTALLATION_TAG.length()) + ")";
        return tag + ", " + installation + ", " + (lv.pool().isEmpty() ? "not thin" : "thin pool " + lv.pool());
    }
}
