package pillar.node.mount;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import pillar.node.fs.FsType;
import pillar.node.sys.Errno;
import pillar.node.sys.FsStats;
import pillar.node.sys.Hangs;
import pillar.node.sys.SyscallException;

/**
 * A {@link Mounter} that keeps its own mount table and behaves like the kernel where the node's
 * logic can tell: mounting needs an existing directory (a file for a device bind) and an existing
 * source (ENOENT, ENOTDIR otherwise); mounts stack; unmounting what is not mounted is EINVAL inside
 * and success outside (the port's contract); a corrupted mount ({@link #corrupt}) probes as
 * {@link MountState#CORRUPTED} and fails statfs with its errno; a busy mount ({@link #busy}) refuses
 * a normal unmount with EBUSY, and only a corrupted busy mount may be detached; a hung mount point
 * ({@link #hang}) keeps every mount, bind and unmount there inside the call, as a mount stuck in the
 * kernel does, while calls on other paths go on. An NFS mount lists as the kernel's nfs4 client lists
 * it (type nfs4, source {@code server:path}, the settled options with {@code addr=}/{@code clientaddr=}
 * in the superblock options); a server can refuse a mount ({@link #refuseNfs}). Nothing is really mounted: files written under a
 * "mount" stay in the directory.
 */
public final class FakeMounter implements Mounter {
    private final List<MountEntry> table = new ArrayList<>();
    private final Map<Path, Errno> corrupted = new HashMap<>();
    private final Set<Path> busy = new HashSet<>();
    private final Map<String, Errno> nfsRefusals = new HashMap<>();
    private Errno tlsRefusal;
    private final Map<String, String> nfsShown = new HashMap<>();
    private final Map<String, String> deviceNumbers = new HashMap<>();
    private final List<String> calls = new ArrayList<>();
    private final Hangs hangs = new Hangs();
    private final Hangs statHangs = new Hangs();
    private FsStats stats = new FsStats(1L << 30, 900L << 20, 124L << 20, 65_536, 65_000, 536);
    private int nextId = 1000;

    @Override
    public void mount(Path device, Path target, FsType fsType, MountOptions options) {
        hangs.pass(target);
        mountNow(device, target, fsType, options);
    }

    private synchronized void mountNow(Path device, Path target, FsType fsType, MountOptions options) {
        calls.add("mount " + device + " " + target + " " + fsType + " " + options.canonical());
        if (!Files.exists(device)) {
            throw new SyscallException("mount", device.toString(), Errno.ENOENT);
        }
        requireTarget(target, true);
        String number = deviceNumbers.computeIfAbsent(device.toString(), d -> "259:" + deviceNumbers.size());
        table.add(new MountEntry(nextId++, 1, number, "/", target, perMount(options), fsType.kernelName(),
                device.toString(), options.data().isEmpty() ? "rw" : "rw," + String.join(",", options.data())));
    }

    @Override
    public void mountNfs(NfsExport export, Path target, MountOptions options) {
        hangs.pass(target);
        mountNfsNow(export, target, options);
    }

    private synchronized void mountNfsNow(NfsExport export, Path target, MountOptions options) {
        calls.add("mount " + export.source() + " " + target + " " + NfsExport.FS_TYPE + " " + options.canonical());
        JnaMounter.nfsFlags(options);
        Errno refused = export.tls() && tlsRefusal != null ? tlsRefusal : nfsRefusals.get(export.source());
        if (refused != null) {
            throw new SyscallException("mount", export.source() + " on " + target + " (nfs4)", refused);
        }
        requireTarget(target, true);
        String number = deviceNumbers.computeIfAbsent(export.source(), d -> "0:" + (100 + deviceNumbers.size()));
        // the kernel lists the options it settled on, the addresses last
        table.add(new MountEntry(nextId++, 1, number, "/", target, perMount(options), NfsExport.FS_TYPE,
                nfsShown.getOrDefault(export.source(), export.source()), "rw,vers=4.2,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,"
                        + "retrans=2,sec=sys," + (export.tls() ? "xprtsec=tls," : "") + "clientaddr=" + export.client()
                        + ",local_lock=none,addr=" + export.server()));
    }

    /**
     * From now on every mount over RPC-with-TLS fails with {@code errno} (null: none does), as the 6.12 VM showed:
     * ESRCH without tlshd, EACCES when the server's certificate is not trusted.
     */
    public synchronized void refuseTlsMounts(Errno errno) {
        tlsRefusal = errno;
    }

    /** From now on the server refuses mounts of {@code source} ({@code server:path}) with {@code errno}. */
    public synchronized void refuseNfs(String source, Errno errno) {
        nfsRefusals.put(source, errno);
    }

    /** The server accepts mounts of {@code source} again. */
    public synchronized void acceptNfs(String source) {
        nfsRefusals.remove(source);
    }

    /** A mount of {@code source} lists as {@code shown} (what the test makes the kernel report instead). */
    public synchronized void listNfsAs(String source, String shown) {
        nfsShown.put(source, shown);
    }

    @Override
    public void bind(Path source, Path target, MountOptions options) {
        hangs.pass(target);
        bindNow(source, target, options);
    }

    private synchronized void bindNow(Path source, Path target, MountOptions options) {
        calls.add("bind " + source + " " + target + (options.readOnly() ? " ro" : ""));
        if (!Files.exists(source)) {
            throw new SyscallException("mount", source.toString(), Errno.ENOENT);
        }
        Optional<MountEntry> sourceMount = find(source);
        requireTarget(target, Files.isDirectory(source));
        MountEntry entry = sourceMount
                .map(s -> new MountEntry(nextId++, 1, s.device(), s.root(), target, perMount(options), s.fsType(),
                        s.source(), s.superOptions()))
                .orElseGet(() -> new MountEntry(nextId++, 1, "0:5", "/" + source.getFileName(), target,
                        perMount(options), "devtmpfs", "udev", "rw"));
        table.add(entry);
    }

    @Override
    public void unmount(Path target) {
        hangs.pass(target);
        unmountNow(target);
    }

    private synchronized void unmountNow(Path target) {
        calls.add("unmount " + target);
        while (probeNow(target).isMounted()) {
            Optional<MountEntry> top = find(target);
            if (top.isEmpty()) {
                corrupted.remove(target); // a broken path that is not a mount point
                return;
            }
            if (busy.contains(target) && !corrupted.containsKey(target)) {
                throw new SyscallException("umount", target.toString(), Errno.EBUSY);
            }
            table.remove(top.get());
            if (find(target).isEmpty()) {
                corrupted.remove(target);
                busy.remove(target);
            }
        }
    }

    @Override
    public MountState probe(Path target) {
        statHangs.pass(target);
        return probeNow(target);
    }

    private synchronized MountState probeNow(Path target) {
        if (corrupted.containsKey(target)) {
            return MountState.CORRUPTED;
        }
        return find(target).isPresent() ? MountState.MOUNTED : MountState.NOT_MOUNTED;
    }

    @Override
    public synchronized Optional<MountEntry> find(Path target) {
        MountEntry top = null;
        for (MountEntry entry : table) {
            if (entry.mountPoint().equals(target)) {
                top = entry;
            }
        }
        return Optional.ofNullable(top);
    }

    @Override
    public FsStats statfs(Path path) {
        statHangs.pass(path);
        return statfsNow(path);
    }

    private synchronized FsStats statfsNow(Path path) {
        Errno errno = corrupted.get(path);
        if (errno != null) {
            throw new SyscallException("statfs", path.toString(), errno);
        }
        return stats;
    }

    /** Breaks the mount at {@code target} the way a dead FUSE daemon or a shut-down filesystem does. */
    public synchronized void corrupt(Path target, Errno errno) {
        if (!errno.meansCorruptedMount()) {
            throw new IllegalArgumentException(errno + " does not mean a corrupted mount");
        }
        corrupted.put(target, errno);
    }

    /** From now on mount, bind and unmount at {@code target} hang in the "kernel" until the hang is released. */
    public Hangs.Hang hang(Path target) {
        return hangs.on(target);
    }

    /**
     * From now on a stat (probe) and a statfs at {@code target} hang until the hang is released, as they
     * do on a hard NFS mount whose server does not answer.
     */
    public Hangs.Hang hangStat(Path target) {
        return statHangs.on(target);
    }

    /** Makes the mount at {@code target} busy (open files), so that a normal unmount fails. */
    public synchronized void busy(Path target) {
        busy.add(target);
    }

    /** The open files at {@code target} are closed again. */
    public synchronized void idle(Path target) {
        busy.remove(target);
    }

    public synchronized void stats(FsStats stats) {
        this.stats = stats;
    }

    @Override
    public synchronized List<MountEntry> table() {
        return List.copyOf(table);
    }

    public synchronized int countAt(Path target) {
        return (int) table.stream().filter(e -> e.mountPoint().equals(target)).count();
    }

    /** Every call in order, e.g. {@code "mount /dev/nvme0n1 /kubelet/... ext4 [noatime]"}. */
    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    private static void requireTarget(Path target, boolean directory) {
        if (!Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new SyscallException("mount", "on " + target, Errno.ENOENT);
        }
        if (directory && !Files.isDirectory(target)) {
            throw new SyscallException("mount", "on " + target, Errno.ENOTDIR);
        }
    }

    private static String perMount(MountOptions options) {
        return options.readOnly() ? "ro,relatime" : "rw,relatime";
    }
}
