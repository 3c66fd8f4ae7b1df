package pillar.node.sys;

import java.util.Map;

/**
 * A Linux error number (the generic numbering x86_64 and aarch64 share) with its symbolic name, so
 * messages say {@code ENOTCONN} rather than 107.
 */
public record Errno(int code) {
    public static final Errno EPERM = new Errno(1);
    public static final Errno ENOENT = new Errno(2);
    public static final Errno ESRCH = new Errno(3);
    public static final Errno EIO = new Errno(5);
    public static final Errno EAGAIN = new Errno(11);
    public static final Errno EACCES = new Errno(13);
    public static final Errno ENOTBLK = new Errno(15);
    public static final Errno EBUSY = new Errno(16);
    public static final Errno EEXIST = new Errno(17);
    public static final Errno ENODEV = new Errno(19);
    public static final Errno ENOTDIR = new Errno(20);
    public static final Errno EINVAL = new Errno(22);
    public static final Errno ENOSPC = new Errno(28);
    public static final Errno EROFS = new Errno(30);
    public static final Errno EOPNOTSUPP = new Errno(95);
    public static final Errno EADDRNOTAVAIL = new Errno(99);
    public static final Errno ENETUNREACH = new Errno(101);
    public static final Errno ENOTCONN = new Errno(107);
    public static final Errno ETIMEDOUT = new Errno(110);
    public static final Errno ECONNREFUSED = new Errno(111);
    public static final Errno EHOSTUNREACH = new Errno(113);
    public static final Errno EALREADY = new Errno(114);
    public static final Errno ESTALE = new Errno(116);
    public static final Errno ENOKEY = new Errno(126);
    public static final Errno EKEYREJECTED = new Errno(129);

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(1, "EPERM"), Map.entry(2, "ENOENT"), Map.entry(3, "ESRCH"), Map.entry(5, "EIO"), Map.entry(11, "EAGAIN"),
            Map.entry(13, "EACCES"), Map.entry(15, "ENOTBLK"), Map.entry(16, "EBUSY"), Map.entry(17, "EEXIST"),
            Map.entry(19, "ENODEV"), Map.entry(20, "ENOTDIR"), Map.entry(22, "EINVAL"), Map.entry(28, "ENOSPC"),
            Map.entry(30, "EROFS"), Map.entry(95, "EOPNOTSUPP"), Map.entry(99, "EADDRNOTAVAIL"),
            Map.entry(101, "ENETUNREACH"), Map.entry(107, "ENOTCONN"), Map.entry(110, "ETIMEDOUT"),
            Map.entry(111, "ECONNREFUSED"), Map.entry(113, "EHOSTUNREACH"), Map.entry(114, "EALREADY"),
            Map.entry(116, "ESTALE"), Map.entry(126, "ENOKEY"), Map.entry(129, "EKEYREJECTED"));

    /** The symbolic name, e.g. {@code ENOTCONN}, or {@code errno 42} for one this class does not name. */
    public String symbol() {
        return NAMES.getOrDefault(code, "errno " + code);
    }

    /**
     * Whether a probe ({@code stat}) of a mount point failing with this error means the mount is
     * still there but broken: EIO (e.g. a filesystem in kernel shutdown), ENOTCONN (a FUSE daemon
     * that died), ESTALE (a stale network handle), EACCES. Such a mount counts as mounted, so it is
     * unmounted rather than skipped.
     */
    public boolean meansCorruptedMount() {
        return code == EIO.code || code == ENOTCONN.code || code == ESTALE.code || code == EACCES.code;
    }

    @Override
    public String toString() {
        return symbol();
    }
}
