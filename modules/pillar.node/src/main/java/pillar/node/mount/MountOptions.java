package pillar.node.mount;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import pillar.api.value.InvalidValueException;
import pillar.node.fs.FsType;

/**
 * Mount flags from a volume capability ({@code mount_flags}, a StorageClass's {@code mountOptions}),
 * checked against an allow-list and split into {@code mount(2)} flag bits and the filesystem's data
 * string. Anything not on the list (for example {@code errors=panic}, which would let one volume
 * panic the worker, or an option of another filesystem) is INVALID_ARGUMENT.
 *
 * <p>Per-mount flags (read-only, nodev, nosuid, noexec, the atime family) also apply to the bind
 * mounts of NodePublishVolume; filesystem options only to the staging mount.
 */
public record MountOptions(long flags, List<String> data, List<String> canonical) {
    public static final long MS_RDONLY = 1;
    public static final long MS_NOSUID = 2;
    public static final long MS_NODEV = 4;
    public static final long MS_NOEXEC = 8;
    public static final long MS_SYNCHRONOUS = 16;
    public static final long MS_REMOUNT = 32;
    public static final long MS_DIRSYNC = 128;
    public static final long MS_NOATIME = 1024;
    public static final long MS_NODIRATIME = 2048;
    public static final long MS_BIND = 4096;
    public static final long MS_RELATIME = 1L << 21;
    public static final long MS_STRICTATIME = 1L << 24;
    public static final long MS_LAZYTIME = 1L << 25;
    /** The flags a bind mount can carry (a read-only remount of a bind mount keeps only these). */
    public static final long PER_MOUNT = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME
            | MS_RELATIME | MS_STRICTATIME;
    public static final MountOptions NONE = new MountOptions(0, List.of(), List.of());

    private static final Map<String, Long> FLAGS = Map.ofEntries(
            Map.entry("defaults", 0L), Map.entry("rw", 0L), Map.entry("ro", MS_RDONLY),
            Map.entry("nosuid", MS_NOSUID), Map.entry("nodev", MS_NODEV), Map.entry("noexec", MS_NOEXEC),
            Map.entry("sync", MS_SYNCHRONOUS), Map.entry("dirsync", MS_DIRSYNC), Map.entry("noatime", MS_NOATIME),
            Map.entry("nodiratime", MS_NODIRATIME), Map.entry("relatime", MS_RELATIME),
            Map.entry("strictatime", MS_STRICTATIME), Map.entry("lazytime", MS_LAZYTIME));
    private static final Set<String> COMMON_DATA = Set.of("discard", "nodiscard", "usrquota", "grpquota", "prjquota");
    private static final Set<String> EXT4_DATA = Set.of("noauto_da_alloc", "auto_da_alloc", "delalloc", "nodelalloc",
            "dioread_nolock", "data=ordered", "data=writeback", "data=journal", "errors=remount-ro",
            "errors=continue");
    private static final Set<String> XFS_DATA = Set.of("nouuid", "inode64", "largeio", "nolargeio", "noquota",
            "uquota", "gquota", "pquota", "wsync");
    private static final Pattern EXT4_COMMIT = Pattern.compile("commit=([1-9][0-9]{0,2})");
    private static final Pattern XFS_LOGBUFS = Pattern.compile("logbufs=[2-8]");
    private static final Pattern XFS_ALLOCSIZE = Pattern.compile("allocsize=(4|8|16|32|64|128|256|512)[kKmM]|allocsize=1[gG]");
    private static final int MAX_OPTIONS = 32;

    public MountOptions {
        data = List.copyOf(data);
        canonical = List.copyOf(canonical);
    }

    /** The mount flags of a capability for a filesystem of {@code fsType}; each entry may hold several, comma separated. */
    public static MountOptions parse(Collection<String> mountFlags, FsType fsType) {
        long flags = 0;
        Set<String> data = new LinkedHashSet<>();
        Set<String> canonical = new LinkedHashSet<>();
        for (String option : split(mountFlags)) {
            Long bit = FLAGS.get(option);
            if (bit != null) {
                flags |= bit;
            } else if (allowedData(option, fsType)) {
                data.add(option);
            } else {
                throw new InvalidValueException("mount_flags", describe(option) + " is not allowed for "
                        + fsType + "; allowed: ro, nosuid, nodev, noexec, sync, dirsync, noatime, nodiratime, "
                        + "relatime, strictatime, lazytime, discard, nodiscard, quota options"
                        + (fsType == FsType.EXT4 ? ", commit=1..999, data=..., errors=remount-ro|continue"
                                : ", nouuid, inode64, largeio, logbufs=2..8, allocsize=..."));
            }
            canonical.add(option);
        }
        return new MountOptions(flags, new ArrayList<>(data), new ArrayList<>(canonical));
    }

    /** Flags for a Block volume's bind mount: only per-mount flags; filesystem options are refused. */
    public static MountOptions parseForBlock(Collection<String> mountFlags) {
        if (!mountFlags.isEmpty()) {
            throw new InvalidValueException("mount_flags", "a Block volume takes no mount flags");
        }
        return NONE;
    }

    /**
     * Flags for an NFS volume's mounts: only per-mount flags (ro, nosuid, nodev, noexec, the atime
     * family). NFS options (soft, timeo, vers, ...) are the driver's ({@link NfsExport}) and refused.
     */
    public static MountOptions parseForNfs(Collection<String> mountFlags) {
        long flags = 0;
        Set<String> canonical = new LinkedHashSet<>();
        for (String option : split(mountFlags)) {
            Long bit = FLAGS.get(option);
            if (bit == null || (bit & ~PER_MOUNT) != 0) {
                throw new InvalidValueException("mount_flags", describe(option) + " is not allowed for an NFS "
                        + "volume; allowed: ro, nosuid, nodev, noexec, noatime, nodiratime, relatime, strictatime "
                        + "(the NFS options, hard among them, are the driver's)");
            }
            flags |= bit;
            canonical.add(option);
        }
        return new MountOptions(flags, List.of(), new ArrayList<>(canonical));
    }

    /** The options of {@code mountFlags}, each entry split at its commas; more than {@link #MAX_OPTIONS} is refused. */
    private static List<String> split(Collection<String> mountFlags) {
        List<String> options = new ArrayList<>();
        for (String entry : mountFlags) {
            options.addAll(List.of(entry.split(",", -1)));
            if (options.size() > MAX_OPTIONS) {
                throw new InvalidValueException("mount_flags", "at most " + MAX_OPTIONS + " options");
            }
        }
        return options;
    }

    public boolean readOnly() {
        return (flags & MS_RDONLY) != 0;
    }

    /** These options, read-only. */
    public MountOptions withReadOnly() {
        return new MountOptions(flags | MS_RDONLY, data, canonical);
    }

    /**
     * These options for the staging mount of a {@code fsType} filesystem: XFS always gets {@code nouuid},
     * since a restored snapshot or a clone carries its source's filesystem UUID and XFS refuses to mount
     * a second filesystem of a UUID already mounted on the node (ext4 does not check).
     */
    public MountOptions forStaging(FsType fsType) {
        if (fsType != FsType.XFS || data.contains("nouuid")) {
            return this;
        }
        List<String> withNouuid = new ArrayList<>(data);
        withNouuid.add("nouuid");
        return new MountOptions(flags, withNouuid, canonical);
    }

    /** The filesystem data string for {@code mount(2)}, or null when there is none. */
    public String dataString() {
        return data.isEmpty() ? null : String.join(",", data);
    }

    /** The per-mount flags a bind mount of these options carries. */
    public long perMountFlags() {
        return flags & PER_MOUNT;
    }

    private static boolean allowedData(String option, FsType fsType) {
        if (COMMON_DATA.contains(option)) {
            return true;
        }
        return switch (fsType) {
            case EXT4 -> EXT4_DATA.contains(option) || EXT4_COMMIT.matcher(option).matches();
            case XFS -> XFS_DATA.contains(option) || XFS_LOGBUFS.matcher(option).matches()
                    || XFS_ALLOCSIZE.matcher(option).matches();
        };
    }

    /** The option quoted if it is short printable ASCII, else only its length: never echo control bytes. */
    static String describe(String option) {
        if (option.isEmpty()) {
            return "an empty option";
        }
        boolean printable = option.length() <= 64 && option.chars().allMatch(c -> c > 0x20 && c < 0x7f);
        return printable ? "'" + option + "'" : "an option of " + option.length() + " characters";
    }
}
