package pillar.agent.backend.zfs;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.Creation;
import pillar.agent.backend.DeviceUsers;
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
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * ZFS volumes (zvols) directly below a parent dataset ({@link ZfsBackend}). Sizes are rounded up to the
 * volblocksize (ZFS refuses any other volsize); zvols are made {@code volmode=dev}, so the storage host never
 * parses a tenant's partition tables. Options: {@link ZfsOptions}. Capacity is the parent's {@code available},
 * which a non-sparse zvol's refreservation (volsize plus metadata) counts against. A new zvol reads zeroes
 * wherever it was not written (copy-on-write, holes), so nothing is zeroed here ({@code DataRemanenceKernelIT}).
 */
public final class ZfsVolumeBackend extends ZfsBackend<ZfsVolumeBackend.Zvol> {
    /** What a lookup reads of a zvol. */
    private static final String ZVOL_PROPERTIES = "volsize,volblocksize," + MANAGED_PROPERTY;
    private static final Duration DEVICE_POLL = Duration.ofMillis(50);
    private static final Logger LOG = Logger.getLogger(ZfsVolumeBackend.class.getName());

    private final ZvolDevices devices;
    private final DeviceUsers users;
    private final Duration deviceTimeout;

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
        this(config, runner, devRoot, sysRoot, Path.of("/proc"), zvolId, commandTimeout, deviceTimeout, installation);
    }

    /** @param procRoot procfs ({@code /proc}): the mounts and the processes an adoption looks for ({@link DeviceUsers}) */
    public ZfsVolumeBackend(BackendConfig config, ProcessRunner runner, Path devRoot, Path sysRoot, Path procRoot, Path zvolId,
            Duration commandTimeout, Duration deviceTimeout, InstallationId installation) {
        super(config, BackendKind.BACKEND_KIND_ZFS_ZVOL, "zfs", runner, commandTimeout, installation, ZVOL_PROPERTIES);
        this.devices = new ZvolDevices(runner, devRoot, sysRoot, zvolId, commandTimeout, System::nanoTime);
        this.users = new DeviceUsers(devRoot, sysRoot, procRoot);
        this.deviceTimeout = deviceTimeout;
    }

    /**
     * A dataset as {@code zfs get} reports it; {@code size} (volsize) 0 for a dataset that is no zvol.
     *
     * @param granularity its volblocksize
     */
    record Zvol(String dataset, long size, long granularity, String mark) implements Dataset {
        @Override
        public boolean ofType() {
            return size > 0;
        }
    }

    /** zfs create first: it refuses an existing dataset, and only then is that one read (one command for a new volume). */
    @Override
    public BackendVolume create(VolumeId id, ByteSize size, Map<String, String> options, NonZeroingPool pool) {
        ZfsOptions opts = ZfsOptions.parse(options);
        String dataset = zfs.dataset(id);
        if (size.bytes() <= 0) {
            throw new BackendException(Kind.OUT_OF_RANGE, "a volume needs a size above 0 bytes");
        }
        ByteSize rounded = BackendException.roundUp(size, opts.volblocksize(), "the volblocksize");
        switch (zfs.create(id, rounded, opts, MANAGED_PROPERTY, owner)) {
            case Creation.NameTaken taken -> {
                Zvol existing = lookup(id).orElseThrow(() -> BackendException.failed("zfs says " + dataset
                        + " exists, zfs get does not find it", taken.cause()));
                return existing(existing, id, rounded, opts);
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

    /** An existing zvol for a create: ours and as asked, or a conflict (an unmarked one too: see {@link #adopt}). */
    private BackendVolume existing(Zvol zvol, VolumeId id, ByteSize rounded, ZfsOptions opts) {
        if (!owns(zvol)) {
            throw new BackendException(Kind.CONFLICT, "a dataset named " + zvol.dataset() + " already exists and is not a zvol of"
                    + " this installation (" + ownership(zvol) + ")");
        }
        if (zvol.granularity() != opts.volblocksize()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with volblocksize " + zvol.granularity()
                    + ", not the " + opts.volblocksize() + " requested");
        }
        if (zvol.size() != rounded.bytes()) {
            throw new BackendException(Kind.CONFLICT, "volume " + id + " already exists with " + ByteSize.of(zvol.size())
                    + ", not the " + rounded + " requested");
        }
        return usable(id, zvol);
    }

    @Override
    public List<BackendVolume> list() {
        Map<String, Map<String, Property>> rows = zfs.zvolsOfParent("volsize," + MANAGED_PROPERTY);
        Map<VolumeId, Zvol> ours = new LinkedHashMap<>();
        for (Map.Entry<String, Map<String, Property>> row : rows.entrySet()) {
            String name = row.getKey();
            Property mark = row.getValue().get(MANAGED_PROPERTY);
            if (mark == null || !mark.localValue().equals(owner) || !volumeName(name)) {
                continue;
            }
            Property size = row.getValue().get("volsize");
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
        ours.forEach((id, zvol) -> volumes.add(new BackendVolume(id, ByteSize.of(zvol.size()),
                found.getOrDefault(zvol.dataset(), devices.udevLink(zvol.dataset())))));
        return volumes;
    }

    // --- what the shared base asks of zvols --------------------------------------------------------------

    @Override
    String noun() {
        return "zvol";
    }

    @Override
    Zvol parse(String dataset, Map<String, Property> properties) {
        var volsize = ZfsOutput.bytes(properties.getOrDefault("volsize", Property.NONE).value());
        var volblocksize = ZfsOutput.bytes(properties.getOrDefault("volblocksize", Property.NONE).value());
        String mark = properties.getOrDefault(MANAGED_PROPERTY, Property.NONE).localValue();
        if (volsize.isEmpty() || volblocksize.isEmpty()) {
            return new Zvol(dataset, 0, 0, mark);
        }
        return new Zvol(dataset, volsize.getAsLong(), volblocksize.getAsLong(), mark);
    }

    @Override
    BackendVolume usable(VolumeId id, Zvol zvol) {
        Path device = DeviceWait.await("zvol " + zvol.dataset(), deviceTimeout, DEVICE_POLL,
                "is the zfs module loaded, and volmode not none? without udev, is zvol_id installed?",
                () -> devices.find(zvol.dataset(), zvol.size()));
        return new BackendVolume(id, ByteSize.of(zvol.size()), device);
    }

    @Override
    Map<String, Map<String, Property>> ofParent(String properties) {
        return zfs.zvolsOfParentIfAny(properties);
    }

    @Override
    String adoptionProperties() {
        return ZVOL_PROPERTIES + ",type";
    }

    /** A zvol always has its volsize. */
    @Override
    Optional<String> unsized(Zvol zvol) {
        return Optional.empty();
    }

    /**
     * A zvol keeps no open count a tool shows, so in use is what can be seen of its device ({@code zdN}, found as
     * {@link #find} finds it): an nvmet namespace on it ({@code exports}), a device stacked on it, a mount of it or of a
     * partition, a process holding it open ({@link DeviceUsers}, which says what it cannot see).
     */
    @Override
    Optional<String> user(VolumeId id, Zvol zvol, Map<String, Property> properties, KernelExports exports) {
        Path device = usable(id, zvol).device();
        return exports.device(device).or(() -> users.of(device));
    }

    @Override
    BackendVolume adopted(VolumeId id, Zvol zvol) {
        return usable(id, zvol);
    }

    @Override
    void checkOptions(Map<String, String> options) {
        ZfsOptions.parse(options);
    }

    /** A multiple of the volblocksize zfs get just reported: zfs set takes it as it is, or fails. */
    @Override
    void resize(VolumeId id, ByteSize size) {
        zfs.setVolsize(id, size);
    }

    @Override
    ZfsSnapshotCommands.Destroyed destroy(Zvol zvol) {
        return destroyWhileBusy(zvol.dataset());
    }

    @Override
    ZfsSnapshotCommands.Destroyed destroyHidden(String dataset) {
        return destroyWhileBusy(dataset);
    }

    /**
     * {@code zfs destroy}, excluding the agent's own {@code zvol_id} probes ({@link ZvolDevices#unprobed}: one
     * holding the zvol open would make ZFS refuse it "busy"), retried while busy ({@link DeviceWait#whileBusy}).
     */
    private ZfsSnapshotCommands.Destroyed destroyWhileBusy(String dataset) {
        ZfsSnapshotCommands.Destroyed[] outcome = {ZfsSnapshotCommands.Destroyed.BUSY};
        DeviceWait.whileBusy(deviceTimeout, () -> {
            outcome[0] = devices.unprobed(() -> commands.destroy(dataset, ""));
            return outcome[0] != ZfsSnapshotCommands.Destroyed.BUSY ? Optional.empty() : Optional.of(new BackendException(Kind.FAILED,
                    dataset + " is busy: unexport it first (an nvmet namespace or another user still holds the zvol)"));
        });
        return outcome[0];
    }

    @Override
    void rename(String from, String to) {
        commands.rename(from, to);
        devices.renamed(from);
    }

    @Override
    List<String> cloneProperties(ByteSize size) {
        return List.of("volmode=dev");
    }

    /** A clone or copy has its origin's volsize. */
    @Override
    boolean sizedByProperties() {
        return false;
    }

    @Override
    void growClone(String dataset, ByteSize size) {
        commands.setVolsize(dataset, size);
    }

    @Override
    BackendVolume usableClone(VolumeId id, long size) {
        return usable(id, new Zvol(zfs.dataset(id), size, 0, owner));
    }
}
