package pillar.agent.backend.lvm;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.Creation;
import pillar.agent.backend.Texts;
import pillar.agent.backend.lvm.LvmReport.Lv;
import pillar.agent.backend.lvm.LvmReport.ThinPool;
import pillar.agent.backend.lvm.LvmReport.Usage;
import pillar.agent.backend.lvm.LvmReport.Vg;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;

/**
 * The LVM commands of one backend: its volume group and, for a thin backend, its thin pool. Each
 * method is one command: it builds the argument list, runs it, parses the report ({@link LvmReport})
 * and says what a failure means ({@link LvmFailure}), either as the {@link BackendException} every
 * caller makes of it or, where the backend decides what follows, as a result. Which LVs are whose,
 * sizes and rounding are the backend's business, not this class's.
 *
 * <p>Every command runs with the one command deadline and through {@link LvmDeviceFilter}, so it
 * never scans this host's NVMe-oF namespaces. Arguments come only from validated values: the group and
 * the pool from the configuration, volume IDs (LVM's reserved names refused by {@link #checkName}),
 * tags the backend chooses, and sizes formatted here as bytes.
 */
final class Lvm {
    /** LV name prefixes LVM reserves for itself ("Names starting "snapshot" are reserved"). */
    private static final List<String> RESERVED_PREFIXES = List.of("snapshot", "pvmove");
    /** How lvs and vgs print what {@link LvmReport} parses: JSON, sizes in bytes without a suffix; the fields follow. */
    private static final List<String> REPORT = List.of("--reportformat", "json", "--units", "b", "--nosuffix", "-o");

    private final ProcessRunner runner;
    private final LvmDeviceFilter filter;
    private final Duration timeout;
    private final String vg;
    private final String thinPool;

    /**
     * @param devRoot  where LVM makes {@code <vg>/<lv>} ({@code /dev}), as the filter names the namespaces
     * @param sysRoot  sysfs ({@code /sys}): the NVMe-oF namespaces LVM must not scan
     * @param timeout  the deadline of each command
     * @param vg       the volume group
     * @param thinPool the thin pool LV of a thin backend, "" for a linear one
     */
    Lvm(ProcessRunner runner, Path devRoot, Path sysRoot, Duration timeout, String vg, String thinPool) {
        this.runner = runner;
        this.filter = new LvmDeviceFilter(runner, devRoot, sysRoot, timeout);
        this.timeout = timeout;
        this.vg = vg;
        this.thinPool = thinPool;
    }

    /** Refuses a volume ID that LVM would refuse as an LV name (INVALID), before any command. */
    static void checkName(VolumeId id) {
        for (String prefix : RESERVED_PREFIXES) {
            if (id.value().startsWith(prefix)) {
                throw new BackendException(Kind.INVALID, "volume ID " + id + ": LVM reserves LV names starting with '" + prefix + "'");
            }
        }
    }

    /** {@code <vg>/<lv>}: how the commands name the LV of a volume. */
    String path(VolumeId id) {
        return path(id.value());
    }

    /** {@code <vg>/<name>}: how the commands name an LV (a snapshot's included). */
    String path(String lv) {
        return vg + "/" + lv;
    }

    /** {@code <vg>/<pool>}: the thin pool. */
    String poolPath() {
        return vg + "/" + thinPool;
    }

    /** Where the backend's LVs are, for messages: "thin pool vg/pool" or "volume group vg". */
    String where() {
        return thin() ? "thin pool " + poolPath() : "volume group " + vg;
    }

    /**
     * {@code lvcreate} of the volume's LV with these tags and exactly {@code size} (a multiple of the
     * extent size as far as the caller knows): thin in the pool, or linear in the group with its first
     * 4 KiB zeroed ({@code --zero y}); known signatures are wiped either way. A name already taken or
     * too little space is a result; a missing group or pool is UNAVAILABLE, anything else FAILED.
     */
    Creation create(VolumeId id, ByteSize size, List<String> tags) {
        List<String> argv = new ArrayList<>(List.of("lvcreate", "-y", "--wipesignatures", "y"));
        if (!thin()) {
            argv.addAll(List.of("--zero", "y"));
        }
        for (String tag : tags) {
            argv.addAll(List.of("--addtag", tag));
        }
        argv.addAll(List.of("-n", id.value()));
        argv.addAll(thin() ? List.of("-V", size.bytes() + "b", "--thinpool", thinPool) : List.of("-L", size.bytes() + "b"));
        argv.add(vg);
        CommandResult result;
        try {
            result = exec(argv);
        } catch (CommandFailedException e) {
            return switch (LvmFailure.of(e)) {
                case EXISTS -> new Creation.NameTaken(e);
                case NO_SPACE -> new Creation.NoRoom(e);
                case VG_NOT_FOUND, POOL_NOT_FOUND -> throw unavailable(e);
                default -> throw BackendException.failed("lvcreate of " + id + " failed", e);
            };
        }
        // LVM prints "Rounding up size to full physical extent ..." when the extent size is not the one assumed
        return new Creation.Made((result.stdout() + result.stderr()).contains("Rounding"));
    }

    /** The LV of this volume, whoever owns it ({@code lvs <vg>/<lv>}); empty when there is none. */
    Optional<Lv> lv(VolumeId id) {
        return lv(id.value());
    }

    /** The LV of this name ({@code lvs <vg>/<name>}), whoever owns it; empty when there is none. */
    Optional<Lv> lv(String name) {
        try {
            return LvmReport.lvs(report(LvmReport.LV_FIELDS, path(name))).stream().filter(l -> l.name().equals(name)).findFirst();
        } catch (CommandFailedException e) {
            return switch (LvmFailure.of(e)) {
                case LV_NOT_FOUND -> Optional.empty();
                case VG_NOT_FOUND -> throw unavailable(e);
                default -> throw BackendException.failed("lvs of " + path(name) + " failed", e);
            };
        }
    }

    /** The LV of this name with its creation time ({@code lv_time}); empty when there is none. */
    Optional<LvmReport.Stamped> stamped(String name) {
        try {
            return LvmReport.stamped(report(LvmReport.STAMPED_FIELDS, path(name))).stream().filter(l -> l.lv().name().equals(name))
                    .findFirst();
        } catch (CommandFailedException e) {
            return switch (LvmFailure.of(e)) {
                case LV_NOT_FOUND -> Optional.empty();
                case VG_NOT_FOUND -> throw unavailable(e);
                default -> throw BackendException.failed("lvs of " + path(name) + " failed", e);
            };
        }
    }

    /** Every LV of the volume group with its creation time ({@code lvs <vg>}). */
    List<LvmReport.Stamped> stampedLvs() {
        try {
            return LvmReport.stamped(report(LvmReport.STAMPED_FIELDS, vg));
        } catch (CommandFailedException e) {
            throw LvmFailure.of(e) == LvmFailure.VG_NOT_FOUND ? unavailable(e) : BackendException.failed("lvs of " + vg + " failed", e);
        }
    }

    /** Every LV of the volume group, whoever owns it ({@code lvs <vg>}). */
    List<Lv> lvs() {
        try {
            return LvmReport.lvs(report(LvmReport.LV_FIELDS, vg));
        } catch (CommandFailedException e) {
            throw LvmFailure.of(e) == LvmFailure.VG_NOT_FOUND ? unavailable(e) : BackendException.failed("lvs of " + vg + " failed", e);
        }
    }

    /** The volume group's size, free bytes and extent size ({@code vgs}); UNAVAILABLE when it does not exist. */
    Vg volumeGroup() {
        try {
            String json = report("vgs", LvmReport.VG_FIELDS, vg);
            return LvmReport.vgs(json).stream().filter(v -> v.name().equals(vg)).findFirst()
                    .orElseThrow(() -> new BackendException(Kind.UNAVAILABLE, "volume group " + vg + " does not exist"));
        } catch (CommandFailedException e) {
            throw LvmFailure.of(e) == LvmFailure.VG_NOT_FOUND ? unavailable(e) : BackendException.failed("vgs of " + vg + " failed", e);
        }
    }

    /** The thin pool's size, usage and zeroing; UNAVAILABLE when it is missing or is no thin pool. */
    ThinPool thinPool() {
        List<ThinPool> pools;
        try {
            pools = LvmReport.thinPools(report(LvmReport.POOL_FIELDS, poolPath()));
        } catch (CommandFailedException e) {
            throw switch (LvmFailure.of(e)) {
                case LV_NOT_FOUND, VG_NOT_FOUND -> unavailable(e);
                default -> BackendException.failed("lvs of " + where() + " failed", e);
            };
        }
        return requireThinPool(pools.stream().findFirst(), where() + " does not exist");
    }

    /** The pool's row when it is one; UNAVAILABLE saying {@code missing} without a row, or when the LV is no thin pool. */
    private ThinPool requireThinPool(Optional<ThinPool> row, String missing) {
        ThinPool pool = row.orElseThrow(() -> new BackendException(Kind.UNAVAILABLE, missing));
        if (pool.attr().isEmpty() || pool.attr().charAt(0) != 't') {
            throw new BackendException(Kind.UNAVAILABLE, where() + " is not a thin pool (lv_attr " + pool.attr() + ")");
        }
        return pool;
    }

    /**
     * The thin pool's size, usage and zeroing with every LV of the group and its size ({@code lvs <vg>}, one
     * command): what the over-provisioning check needs. UNAVAILABLE when the group or the pool is missing, or
     * the pool is no thin pool.
     */
    LvmReport.ThinLayout thinLayout() {
        LvmReport.ThinLayout layout;
        try {
            layout = LvmReport.thinLayout(report(LvmReport.LAYOUT_FIELDS, vg), thinPool);
        } catch (CommandFailedException e) {
            throw LvmFailure.of(e) == LvmFailure.VG_NOT_FOUND ? unavailable(e) : BackendException.failed("lvs of " + vg + " failed", e);
        }
        requireThinPool(layout.pool(), where() + " is not available: volume group " + vg + " has no LV named " + thinPool
                + " (is the configured thin-pool right?)");
        return layout;
    }

    /** The thin pool's data and metadata usage; UNAVAILABLE when it does not exist. */
    Usage thinUsage() {
        List<Usage> usage;
        try {
            usage = LvmReport.thinUsage(report(LvmReport.USAGE_FIELDS, poolPath()));
        } catch (CommandFailedException e) {
            throw switch (LvmFailure.of(e)) {
                case LV_NOT_FOUND, VG_NOT_FOUND -> unavailable(e);
                default -> BackendException.failed("lvs of thin pool " + poolPath() + " failed", e);
            };
        }
        return usage.stream().findFirst()
                .orElseThrow(() -> new BackendException(Kind.UNAVAILABLE, "thin pool " + poolPath() + " does not exist"));
    }

    /** {@code lvextend} of the volume's LV to exactly {@code size}, a multiple of the extent size. */
    void extend(VolumeId id, ByteSize size) {
        try {
            run(List.of("lvextend", "-L", size.bytes() + "b", path(id)));
        } catch (CommandFailedException e) {
            throw switch (LvmFailure.of(e)) {
                case LV_NOT_FOUND -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist in " + where(), e);
                case NO_SPACE -> new BackendException(Kind.NO_SPACE, where() + " has no room to grow " + id + " to " + size + ": "
                        + Texts.oneLine(e.stderr()), e);
                case VG_NOT_FOUND -> unavailable(e);
                default -> BackendException.failed("lvextend of " + id + " failed", e);
            };
        }
    }

    /** {@code lvremove -f} of the volume's LV: empty when it is gone (or was), the failure when something holds it. */
    Optional<BackendException> remove(VolumeId id) {
        return remove(id.value());
    }

    /** {@code lvremove -f <vg>/<name>}: empty when it is gone (or was), the failure when something holds it. */
    Optional<BackendException> remove(String name) {
        try {
            run(List.of("lvremove", "-f", path(name)));
            return Optional.empty();
        } catch (CommandFailedException e) {
            return switch (LvmFailure.of(e)) {
                case LV_NOT_FOUND -> Optional.empty();
                case IN_USE -> Optional.of(new BackendException(Kind.FAILED, path(name)
                        + " is in use: unexport it first (an nvmet namespace or a mount still holds it)", e));
                case VG_NOT_FOUND -> throw unavailable(e);
                default -> throw BackendException.failed("lvremove of " + path(name) + " failed", e);
            };
        }
    }

    /**
     * {@code lvcreate -y -s [-kn] --addtag T... -n NAME <vg>/<origin>}: a thin snapshot of a thin LV, in its
     * pool and of its size, with these tags. LVM gives a thin snapshot the activation-skip flag and
     * leaves it inactive; {@code active} clears the flag ({@code -kn}) so that the new LV is activated
     * now and by every later activation, as a volume must be. A name already taken or a full pool is a
     * result; a missing origin is NOT_FOUND, a missing group UNAVAILABLE, anything else FAILED.
     */
    Creation thinSnapshot(String origin, String name, List<String> tags, boolean active) {
        List<String> argv = new ArrayList<>(List.of("lvcreate", "-y", "-s"));
        if (active) {
            argv.add("-kn");
        }
        for (String tag : tags) {
            argv.addAll(List.of("--addtag", tag));
        }
        argv.addAll(List.of("-n", name, path(origin)));
        try {
            exec(argv);
            return new Creation.Made(false);
        } catch (CommandFailedException e) {
            return switch (LvmFailure.of(e)) {
                case EXISTS -> new Creation.NameTaken(e);
                case NO_SPACE -> new Creation.NoRoom(e);
                case LV_NOT_FOUND -> throw new BackendException(Kind.NOT_FOUND, path(origin) + " does not exist", e);
                case VG_NOT_FOUND, POOL_NOT_FOUND -> throw unavailable(e);
                default -> throw BackendException.failed("lvcreate of the thin snapshot " + path(name) + " of " + origin + " failed", e);
            };
        }
    }

    /** {@code lvchange --deltag T... <vg>/<name>}: takes these tags off the LV (one it does not carry is no error). */
    void deleteTags(String name, List<String> tags) {
        changeTags(name, tags, List.of());
    }

    /**
     * {@code lvchange --deltag D... --addtag A... <vg>/<name>}: one command, so one metadata commit: the LV
     * carries either the old tags or the new ones, never neither. A tag already there or already gone is no error.
     */
    void changeTags(String name, List<String> delete, List<String> add) {
        List<String> argv = new ArrayList<>(List.of("lvchange"));
        for (String tag : delete) {
            argv.addAll(List.of("--deltag", tag));
        }
        for (String tag : add) {
            argv.addAll(List.of("--addtag", tag));
        }
        argv.add(path(name));
        try {
            run(argv);
        } catch (CommandFailedException e) {
            throw BackendException.failed("lvchange of the tags of " + path(name) + " failed", e);
        }
    }

    /** {@code lvchange -ay -K}: activates the volume's LV, even one flagged to skip activation. */
    void activate(VolumeId id) {
        try {
            run(List.of("lvchange", "-ay", "-K", path(id)));
        } catch (CommandFailedException e) {
            throw BackendException.failed("activating " + path(id) + " failed", e);
        }
    }

    private boolean thin() {
        return !thinPool.isEmpty();
    }

    /** {@code lvs} of these fields of one LV or of the whole group, in {@link LvmReport}'s format. */
    private String report(String fields, String what) {
        return report("lvs", fields, what);
    }

    /** {@code lvs} or {@code vgs} of these fields, in {@link LvmReport}'s format. */
    private String report(String program, String fields, String what) {
        List<String> argv = new ArrayList<>(List.of(program));
        argv.addAll(REPORT);
        argv.addAll(List.of(fields, what));
        return run(argv);
    }

    private String run(List<String> argv) {
        return exec(argv).stdout();
    }

    /** Every command goes through here: with its deadline, and kept off this host's NVMe-oF namespaces. */
    private CommandResult exec(List<String> argv) {
        return runner.run(new Command(filter.apply(argv), timeout));
    }

    private BackendException unavailable(CommandFailedException e) {
        return new BackendException(Kind.UNAVAILABLE, where() + " is not available: " + Texts.oneLine(e.stderr())
                + " (are its physical volumes present and the group activated?)", e);
    }
}
