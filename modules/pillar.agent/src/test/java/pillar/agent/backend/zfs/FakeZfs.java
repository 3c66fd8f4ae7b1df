package pillar.agent.backend.zfs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import pillar.agent.backend.Holds;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/**
 * A stateful fake of {@code zfs} and {@code zvol_id} behind the {@link ProcessRunner} port: one pool
 * with file systems and zvols kept in memory, space accounting with refreservations, and the zvols'
 * block devices as files under temporary {@code dev} and {@code sys} roots, made the way the host
 * would: with udev ({@code /dev/zdN} plus the {@code /dev/zvol/<dataset>} link), without udev
 * ({@code /dev/zdN} and {@code /sys/block/zdN} with {@code size}, {@code dev} and {@code diskseq} only, numbers in
 * steps of 16 and reused, the disk sequence number new for each), or never.
 * Devices can appear late, as they do (about 0.2 s after {@code zfs create}); a {@code zvol_id} holds
 * its zvol open, and a destroy of it meanwhile is refused busy, as the kernel refuses it ({@link #holdProbes}).
 *
 * <p>It understands exactly the argument lists {@link ZfsVolumeBackend} and {@link ZfsDatasetBackend} emit and answers in the
 * scripted format of {@code zfs -Hp} with libzfs's messages and exit status 1, as captured from zfs
 * 2.1.11 in the VM ({@code zfs/README.md}; {@link ZfsParsingTest} holds the fake to those captures);
 * any other argument list fails the test. Like the real zfs, {@code create} rounds a volsize up to the
 * block size, {@code set volsize} refuses an unaligned one and shrinks a zvol without complaint.
 *
 * <p>Snapshots ({@code dataset@name}, inheriting user properties from their dataset), clones (which
 * depend on their origin: destroying a snapshot with clones fails unless {@code -d}, which defers it
 * until its last clone goes; destroying a zvol with snapshots fails unless {@code -r}),
 * {@code zfs send | zfs recv -s} through {@link #relay} (the copy gets the stream's snapshot too; one cut
 * short keeps its partial state and resumes from its token), and
 * {@code rename} (a dataset with its snapshots, its clones keep their origin). All of these for
 * filesystems too: a filesystem's snapshot has no volsize, its clone or copy is a filesystem (mounted
 * below its parent's mountpoint unless made unmounted: {@code recv -u}, {@code canmount=noauto}) taking
 * {@code refquota} and the other {@code -o} properties, and {@code zfs mount} mounts it. Every command
 * that would have had libzfs commit its shares (exportfs -ra) is recorded: {@link #shareCommits}.
 */
public final class FakeZfs implements ProcessRunner {
    /** How zvol device nodes appear. */
    public enum Devices { UDEV, NO_UDEV, NEVER }

    private static final int FAILED = 1;
    /** The block major the zfs module registered for zvols (dynamic; 230 on the hosts seen). */
    static final int ZVOL_MAJOR = 230;
    private static final Set<String> VOLMODES = Set.of("default", "full", "geom", "dev", "none");
    private static final Set<String> COMPRESSION = Set.of("on", "off", "lz4", "zstd", "gzip", "zle", "lzjb");

    private final String pool;
    private final long poolSize;
    private final Path devRoot;
    private final Path sysRoot;
    private final String zvolId;
    private final Devices devices;
    private final Map<String, Dataset> datasets = new TreeMap<>();
    private final Holds busy = new Holds();
    private final Holds settling = new Holds();
    private final List<Command> commands = new ArrayList<>();
    /** The datasets whose device a {@code zvol_id} has open now (only while {@link #holdProbes} holds them). */
    private final List<String> probing = new ArrayList<>();
    private CountDownLatch probeStarted = new CountDownLatch(0);
    private CountDownLatch probeRelease;
    private int refusedWhileProbed;
    private Duration deviceDelay = Duration.ZERO;
    private String health = "ONLINE";
    private boolean failNextReceive;
    /** While set, a relayed receive takes a permit for each chunk (or ends at its relay's stop). */
    private Semaphore receivePace;
    /** The commands that would have had libzfs commit its shares (exportfs -ra: docs/nfs.md fact 11), in order. */
    private final List<List<String>> shareCommits = new ArrayList<>();
    private long clock = 1_700_000_000L;
    /** The kernel's disk sequence number: one more for every disk made, never reused (sysfs {@code diskseq}). */
    private long diskseq = 8;

    private static final class Dataset {
        final boolean volume;
        long volsize;
        final long volblocksize;
        final boolean sparse;
        final Map<String, String> properties = new HashMap<>();
        /** A filesystem's refquota, 0 for none. */
        long refquota;
        int minor = -1;
        boolean snapshot;
        boolean deferDestroy;
        long creation;
        /** The snapshot a clone was made of, or null. */
        Dataset origin;
        /** A snapshot's: whether it is of a zvol (else of a filesystem, and it has no volsize). */
        boolean ofVolume;
        /**
         * A filesystem's: whether it is mounted (where its mountpoint says); not after {@code zfs create -u},
         * {@code zfs recv -u}, a clone with {@code canmount=noauto} or umount, until mounted again.
         */
        boolean mounted = true;
        /** A partial receive's: the token its saved state resumes from; null when complete (or never received). */
        String resumeToken;

        Dataset(boolean volume, long volsize, long volblocksize, boolean sparse) {
            this.volume = volume;
            this.volsize = volsize;
            this.volblocksize = volblocksize;
            this.sparse = sparse;
        }
    }

    public FakeZfs(String pool, long poolSize, Path devRoot, Path sysRoot, String zvolId, Devices devices) {
        this.pool = pool;
        this.poolSize = poolSize;
        this.devRoot = devRoot;
        this.sysRoot = sysRoot;
        this.zvolId = zvolId;
        this.devices = devices;
        datasets.put(pool, new Dataset(false, 0, 0, false));
    }

    // --- the test's side ----------------------------------------------------------------------------

    public synchronized FakeZfs withFilesystem(String name) {
        datasets.put(name, new Dataset(false, 0, 0, false));
        return this;
    }

    /** Device nodes appear this long after {@code zfs create}. */
    synchronized FakeZfs withDeviceDelay(Duration delay) {
        deviceDelay = delay;
        return this;
    }

    /**
     * {@code zfs set property=value dataset}: a user property set locally on the dataset, which its
     * descendants inherit (their {@code zfs get} shows the value with source {@code inherited from <dataset>}).
     */
    public synchronized FakeZfs withProperty(String dataset, String property, String value) {
        datasets.get(dataset).properties.put(property, value);
        return this;
    }

    /** The pool's health from now on, as {@code zpool list -H -o health} prints it (DEGRADED after a device failed). */
    public synchronized FakeZfs setHealth(String state) {
        health = state;
        return this;
    }

    /** A zvol someone else made: no {@code io.pillar-csi:managed}. */
    synchronized void addForeignZvol(String name, long volsize, long volblocksize) {
        Dataset zvol = new Dataset(true, volsize, volblocksize, true);
        datasets.put(name, zvol);
        attachDevice(name, zvol);
    }

    /** An nvmet namespace holds the zvol open: destroy fails with EBUSY. */
    synchronized void markBusy(String name) {
        busy.hold(name);
    }

    /** Held for a moment (udev's probe, the kernel's release): the next {@code removals} removals are refused. */
    synchronized void markBusy(String name, int removals) {
        busy.hold(name, removals);
    }

    /**
     * A zvol whose block device the module is still making (seen in the VM right after a clone): its
     * next {@code sets} property sets answer "dataset is busy".
     */
    synchronized void markSettling(String name, int sets) {
        settling.hold(name, sets);
    }

    public synchronized boolean exists(String name) {
        return datasets.containsKey(name);
    }

    synchronized long volsize(String name) {
        return datasets.get(name).volsize;
    }

    synchronized long refquota(String name) {
        return datasets.get(name).refquota;
    }

    /** A zvol's volsize, a filesystem's refquota. */
    synchronized long size(String name) {
        Dataset d = datasets.get(name);
        return d.volume ? d.volsize : d.refquota;
    }

    /** Whether the filesystem is mounted. */
    synchronized boolean mounted(String name) {
        Dataset d = datasets.get(name);
        return isFilesystem(d) && d.mounted && mountpoint(name).startsWith("/");
    }

    /**
     * Every command so far that would have had the real zfs commit libzfs's shares, which runs
     * {@code exportfs -ra} and wipes every export made with exportfs (docs/nfs.md fact 11): as OpenZFS's
     * zfs_main.c and libzfs do it, {@code zfs create} of a filesystem without {@code -u}, {@code zfs clone}
     * of a filesystem whose canmount is on, {@code zfs recv} of a filesystem without {@code -u},
     * {@code zfs mount}, {@code zfs destroy} of a mounted filesystem and {@code zfs rename} of a mounted one
     * without {@code -u} (unmounted and remounted). {@code zfs set canmount=on}, mount.zfs and umount(8) are not.
     */
    synchronized List<List<String>> shareCommits() {
        return List.copyOf(shareCommits);
    }

    synchronized Map<String, String> properties(String name) {
        return Map.copyOf(datasets.get(name).properties);
    }

    /** Every dataset and snapshot at or below {@code name}, in name order. */
    public synchronized List<String> below(String name) {
        return datasets.keySet().stream().filter(n -> n.equals(name) || n.startsWith(name + "/") || n.startsWith(name + "@")).toList();
    }

    /** The next receive is cut short, as by a crash: its target is left half made and the pipe fails. */
    synchronized FakeZfs failNextReceive() {
        failNextReceive = true;
        return this;
    }

    /**
     * From now on each chunk of a relayed receive takes one of {@code chunks}' permits, waiting for it (or its
     * relay's stop); null: none. A copy that moves as far as the test says.
     */
    synchronized FakeZfs paceReceives(Semaphore chunks) {
        receivePace = chunks;
        return this;
    }

    /** The resume token of a partial receive into {@code name}, empty when it has none. */
    synchronized Optional<String> resumeToken(String name) {
        return Optional.ofNullable(datasets.get(name)).map(d -> d.resumeToken);
    }

    synchronized List<List<String>> argvs() {
        return commands.stream().map(Command::argv).toList();
    }

    /** The first word of each command, "zfs create" style for zfs. */
    synchronized List<String> verbs() {
        return commands.stream().map(c -> c.program().equals("zfs") ? "zfs " + c.argv().get(1) : c.program()).toList();
    }

    synchronized long available() {
        return poolSize - used(pool);
    }

    Path zd(int minor) {
        return devRoot.resolve("zd" + minor);
    }

    // --- the tools ------------------------------------------------------------------------------------

    /**
     * {@code zvol_id} opens the device it names, and an open zvol cannot be destroyed (the kernel's
     * {@code zvol_open} owns the dataset until the last close): while {@link #holdProbes} holds them,
     * each probe keeps its zvol open, and a destroy of it in that time is refused "dataset is busy".
     */
    @Override
    public CommandResult run(Command command) {
        if (!command.argv().get(0).equals(zvolId)) {
            return runLocked(command);
        }
        String open;
        CountDownLatch release;
        CommandResult result;
        synchronized (this) {
            commands.add(command);
            result = zvolId(command, command.argv());
            open = result.stdout().strip();
            release = probeRelease;
            if (release == null) {
                return result;
            }
            probing.add(open);
            probeStarted.countDown();
        }
        try {
            release.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            synchronized (this) {
                probing.remove(open);
            }
        }
        return result;
    }

    /**
     * From now on each {@code zvol_id} keeps its zvol open until {@code release} (null: it closes at once,
     * the default); {@code started} counts each probe's open.
     */
    synchronized FakeZfs holdProbes(CountDownLatch started, CountDownLatch release) {
        probeStarted = started;
        probeRelease = release;
        return this;
    }

    /** How many destroys were refused because a {@code zvol_id} had the zvol open. */
    synchronized int destroysRefusedWhileProbed() {
        return refusedWhileProbed;
    }

    private synchronized CommandResult runLocked(Command command) {
        commands.add(command);
        List<String> a = command.argv();
        if (a.get(0).equals("zpool")) {
            return zpoolHealth(command, a);
        }
        if (a.get(0).equals("mkdir") || a.get(0).equals("mount") || a.get(0).equals("umount")) {
            return mountCommand(command, a);
        }
        expect(a, a.get(0).equals("zfs") && a.size() > 2);
        return switch (a.get(1)) {
            case "create" -> create(command, a);
            case "get" -> get(command, a);
            case "list" -> list(command, a);
            case "set" -> set(command, a);
            case "destroy" -> destroy(command, a);
            case "snapshot" -> snapshot(command, a);
            case "clone" -> cloneOf(command, a);
            case "rename" -> rename(command, a);
            case "mount" -> mount(command, a);
            case "send" -> sendDryRun(command, a);
            case "recv" -> abortReceive(command, a);
            default -> throw notUnderstood(a);
        };
    }

    /**
     * {@code zfs send SNAPSHOT | zfs recv -s -u [-o p=v]... TARGET}, or the rest of a partial receive,
     * {@code zfs send -t TOKEN | zfs recv -s -u TARGET}: the stream ({@link #streamSize} bytes) passes in
     * chunks of 1 MiB, each reported to the flow and paced by {@link #paceReceives}; a stop, or a receive cut
     * short ({@link #failNextReceive}), leaves the target made with the saved state's resume token, as
     * {@code -s} does; the whole stream makes it complete, with the stream's snapshot.
     */
    @Override
    public Relayed relay(Command first, Command second, Flow flow) {
        String target;
        String from;
        long at;
        long total;
        synchronized (this) {
            commands.add(first);
            commands.add(second);
            List<String> send = first.argv();
            List<String> recv = second.argv();
            boolean resume = send.size() == 4 && send.subList(0, 3).equals(List.of("zfs", "send", "-t"));
            expect(send, resume || send.size() == 3 && send.subList(0, 2).equals(List.of("zfs", "send")));
            expect(recv, recv.size() > 4 && recv.subList(0, 4).equals(List.of("zfs", "recv", "-s", "-u")));
            Map<String, String> properties = options(recv, 4, recv.size() - 1);
            target = recv.getLast();
            Dataset partial = datasets.get(target);
            if (resume) {
                expect(recv, properties.isEmpty());
                String[] token = send.get(3).split("-", 4); // 1-fake-<bytes>-<snapshot>
                from = token[3];
                at = Long.parseLong(token[2]);
                if (partial == null || !send.get(3).equals(partial.resumeToken)) {
                    throw failure(second, "cannot resume receive: destination '" + target + "' has no saved partial receive state");
                }
            } else {
                from = send.get(2);
                at = 0;
                Dataset snap = datasets.get(from);
                if (snap == null || !snap.snapshot) {
                    throw failure(first, "cannot open '" + from + "': dataset does not exist");
                }
                if (partial != null) {
                    throw failure(second, "cannot receive new filesystem stream: destination '" + target + "' exists\n"
                            + "must specify -F to overwrite it");
                }
                if (!datasets.containsKey(target.substring(0, target.lastIndexOf('/')))) {
                    throw failure(second, "cannot receive new filesystem stream: destination '" + target + "' does not exist");
                }
                Dataset copy = snap.ofVolume ? new Dataset(true, snap.volsize, snap.volblocksize, true) : filesystem(second, target, properties);
                copy.properties.putAll(properties);
                copy.mounted = false;
                copy.resumeToken = token(from, 0);
                datasets.put(target, copy);
            }
            total = streamSize(datasets.get(from));
        }
        long start = at;
        while (at < total) {
            pace(flow);
            synchronized (this) {
                if (flow.stopped()) {
                    datasets.get(target).resumeToken = token(from, at);
                    return new Relayed(at - start, true);
                }
                if (failNextReceive && at > start) {
                    failNextReceive = false;
                    datasets.get(target).resumeToken = token(from, at);
                    throw failure(second, "cannot receive new filesystem stream: checksum mismatch or incomplete stream.\n"
                            + "Partially received snapshot is saved.\nA resuming stream can be generated on the sending system by running:\n"
                            + "    zfs send -t " + token(from, at));
                }
                at = Math.min(total, at + (1 << 20));
            }
            flow.passed(at - start);
        }
        synchronized (this) {
            Dataset copy = datasets.get(target);
            Dataset snap = datasets.get(from);
            copy.resumeToken = null;
            if (copy.volume) {
                attachDevice(target, copy);
            }
            Dataset received = new Dataset(false, snap.volsize, snap.volblocksize, true);
            received.ofVolume = snap.ofVolume;
            received.snapshot = true;
            received.creation = ++clock;
            datasets.put(target + from.substring(from.indexOf('@')), received);
            return new Relayed(total - start, false);
        }
    }

    /** Takes a pace permit, if pacing, looking at the flow's stop now and then. */
    private void pace(Flow flow) {
        Semaphore chunks;
        synchronized (this) {
            chunks = receivePace;
        }
        try {
            while (chunks != null && !chunks.tryAcquire(10, TimeUnit.MILLISECONDS) && !flow.stopped()) {
                // waiting for the test to give a permit
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The bytes of a snapshot's full stream: its data and 64 KiB of headers (a filesystem's: 8 MiB). */
    private static long streamSize(Dataset snapshot) {
        return (snapshot.ofVolume ? snapshot.volsize : 8L << 20) + (64 << 10);
    }

    private static String token(String snapshot, long bytes) {
        return "1-fake-" + bytes + "-" + snapshot;
    }

    /**
     * {@code zfs send -nP SNAPSHOT} (the stream's size) and {@code zfs send -nv -t TOKEN} (the token's contents,
     * printed as zfs 2.1.11 prints them).
     */
    private CommandResult sendDryRun(Command command, List<String> a) {
        if (a.size() == 4 && a.get(2).equals("-nP")) {
            Dataset snap = datasets.get(a.get(3));
            if (snap == null || !snap.snapshot) {
                throw failure(command, "cannot open '" + a.get(3) + "': dataset does not exist");
            }
            long size = streamSize(snap);
            return ok("full\t" + a.get(3) + "\t" + size + "\nsize\t" + size + "\n");
        }
        expect(a, a.size() == 5 && a.subList(2, 4).equals(List.of("-nv", "-t")));
        String[] token = a.get(4).split("-", 4);
        return ok("resume token contents:\nnvlist version: 0\n\tobject = 0x1\n\toffset = 0x0\n\tbytes = 0x"
                + Long.toHexString(Long.parseLong(token[2])) + "\n\ttoguid = 0x5eed\n\ttoname = " + token[3] + "\n"
                + "full send of " + token[3] + " estimated size is 32.8M\ntotal estimated size is 32.8M\n");
    }

    /** {@code zfs recv -A TARGET}: a partial receive's saved state deleted, with the dataset it made. */
    private CommandResult abortReceive(Command command, List<String> a) {
        expect(a, a.size() == 4 && a.get(2).equals("-A"));
        Dataset partial = datasets.get(a.get(3));
        if (partial == null || partial.resumeToken == null) {
            throw failure(command, "cannot abort receive: '" + a.get(3) + "' does not have any resumable receive state");
        }
        datasets.remove(a.get(3));
        return ok("");
    }

    /** {@code zfs snapshot [-o p=v]... DATASET@NAME}. */
    private CommandResult snapshot(Command command, List<String> a) {
        Map<String, String> properties = options(a, 2, a.size() - 1);
        String name = a.getLast();
        expect(a, name.indexOf('@') > 0);
        Dataset of = datasets.get(name.substring(0, name.indexOf('@')));
        if (of == null || of.snapshot) {
            throw failure(command, "cannot open '" + name.substring(0, name.indexOf('@')) + "': dataset does not exist");
        }
        if (datasets.containsKey(name)) {
            throw failure(command, "cannot create snapshot '" + name + "': dataset already exists");
        }
        Dataset snap = new Dataset(false, of.volsize, of.volblocksize, true);
        snap.ofVolume = of.volume;
        snap.snapshot = true;
        snap.creation = ++clock;
        snap.properties.putAll(properties);
        datasets.put(name, snap);
        return ok("");
    }

    /** {@code zfs clone [-o p=v]... SNAPSHOT TARGET}: a sparse zvol that depends on the snapshot. */
    private CommandResult cloneOf(Command command, List<String> a) {
        Map<String, String> properties = options(a, 2, a.size() - 2);
        String from = a.get(a.size() - 2);
        String target = a.getLast();
        Dataset snap = datasets.get(from);
        if (snap == null || !snap.snapshot) {
            throw failure(command, "cannot open '" + from + "': dataset does not exist");
        }
        if (datasets.containsKey(target)) {
            throw failure(command, "cannot create '" + target + "': dataset already exists");
        }
        if (!datasets.containsKey(target.substring(0, target.lastIndexOf('/')))) {
            throw failure(command, "cannot create '" + target + "': parent does not exist");
        }
        Dataset clone = snap.ofVolume ? new Dataset(true, snap.volsize, snap.volblocksize, true) : filesystem(command, target, properties);
        clone.origin = snap;
        clone.properties.putAll(properties);
        if (!snap.ofVolume) {
            clone.mounted = autoMounts(properties);
            if (clone.mounted) {
                shareCommits.add(a); // zfs_do_clone mounts and shares a clone whose canmount is on
            }
        }
        datasets.put(target, clone);
        if (snap.ofVolume) {
            attachDevice(target, clone);
        }
        return ok("");
    }

    /**
     * A new filesystem of a clone or receive: its {@code -o} properties checked as {@code zfs create}
     * checks them, {@code refquota} taken out of {@code properties} into the dataset.
     */
    private static Dataset filesystem(Command command, String name, Map<String, String> properties) {
        Dataset fs = new Dataset(false, 0, 0, false);
        fs.refquota = checkFilesystemProperties(command, "cannot create '" + name + "': ", properties);
        return fs;
    }

    /** Whether a new filesystem of these {@code -o} properties is mounted by zfs itself: its canmount is on. */
    private static boolean autoMounts(Map<String, String> properties) {
        return properties.getOrDefault("canmount", "on").equals("on");
    }

    /** The filesystem properties {@code zfs create} accepts; returns the refquota (0 for none) and removes it from the map. */
    private static long checkFilesystemProperties(Command command, String cannot, Map<String, String> properties) {
        for (Map.Entry<String, String> p : properties.entrySet()) {
            boolean valid = switch (p.getKey()) {
                case "refquota" -> p.getValue().matches("[0-9]{1,19}");
                case "compression" -> COMPRESSION.contains(p.getValue());
                case "snapdir" -> Set.of("hidden", "visible").contains(p.getValue());
                case "sharenfs" -> !p.getValue().isEmpty();
                case "canmount" -> Set.of("on", "off", "noauto").contains(p.getValue());
                case "volmode" -> throw failure(command, cannot + "'volmode' does not apply to datasets of this type");
                default -> p.getKey().contains(":");
            };
            if (!valid) {
                throw failure(command, cannot + "'" + p.getKey() + "' must be one of the documented values");
            }
        }
        return properties.containsKey("refquota") ? Long.parseLong(properties.remove("refquota")) : 0;
    }

    /** {@code zfs mount FS}: mounted at its mountpoint. */
    private CommandResult mount(Command command, List<String> a) {
        expect(a, a.size() == 3);
        String name = a.get(2);
        Dataset fs = datasets.get(name);
        if (fs == null) {
            throw failure(command, "cannot open '" + name + "': dataset does not exist");
        }
        if (!isFilesystem(fs)) {
            throw failure(command, "cannot open '" + name + "': operation not applicable to datasets of this type");
        }
        if (fs.mounted) {
            throw failure(command, "cannot mount '" + name + "': filesystem already mounted");
        }
        fs.mounted = true;
        shareCommits.add(a);
        return ok("");
    }

    /**
     * {@code zfs rename [-u] FROM TO}: the dataset with its snapshots; its device link follows. A mounted
     * filesystem is unmounted and remounted at its new mountpoint (a share commit); {@code -u} of a mounted
     * one (left mounted at the old path) is not modelled and fails the test.
     */
    private CommandResult rename(Command command, List<String> a) {
        boolean noRemount = a.size() == 5 && a.get(2).equals("-u");
        expect(a, a.size() == 4 || noRemount);
        String from = a.get(a.size() - 2);
        String to = a.getLast();
        Dataset dataset = datasets.get(from);
        if (dataset == null || dataset.snapshot) {
            throw failure(command, "cannot open '" + from + "': dataset does not exist");
        }
        boolean mountedFilesystem = isFilesystem(dataset) && dataset.mounted && mountpoint(from).startsWith("/");
        expect(a, !(noRemount && mountedFilesystem));
        if (mountedFilesystem) {
            shareCommits.add(a);
        }
        if (datasets.containsKey(to)) {
            throw failure(command, "cannot rename to '" + to + "': dataset already exists");
        }
        for (String name : below(from)) {
            if (name.equals(from) || name.startsWith(from + "@")) {
                datasets.put(to + name.substring(from.length()), datasets.remove(name));
            }
        }
        if (dataset.minor >= 0 && devices == Devices.UDEV) {
            try {
                Files.deleteIfExists(devRoot.resolve("zvol").resolve(from));
                Path link = devRoot.resolve("zvol").resolve(to);
                Files.createDirectories(link.getParent());
                Files.createSymbolicLink(link, zd(dataset.minor));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return ok("");
    }

    /** The {@code -o name=value} pairs of {@code a[from..to)}. */
    private static Map<String, String> options(List<String> a, int from, int to) {
        Map<String, String> properties = new HashMap<>();
        expect(a, (to - from) % 2 == 0 && to >= from);
        for (int i = from; i < to; i += 2) {
            expect(a, a.get(i).equals("-o"));
            String[] kv = a.get(i + 1).split("=", 2);
            expect(a, kv.length == 2);
            properties.put(kv[0], kv[1]);
        }
        return properties;
    }

    private List<String> clonesOf(Dataset snapshot) {
        return datasets.entrySet().stream().filter(e -> e.getValue().origin == snapshot).map(Map.Entry::getKey).toList();
    }

    /** {@code zpool list -H -o health POOL}: one line; a pool not imported is "cannot open 'P': no such pool", status 1. */
    private CommandResult zpoolHealth(Command command, List<String> a) {
        expect(a, a.size() == 6 && a.subList(1, 5).equals(List.of("list", "-H", "-o", "health")));
        if (!a.get(5).equals(pool)) {
            throw failure(command, "cannot open '" + a.get(5) + "': no such pool");
        }
        return new CommandResult(health + "\n", "");
    }

    /**
     * {@code mkdir -p DIR} (nothing: the fake has no directories), {@code mount -t zfs -o zfsutil NAME DIR}
     * (an unmounted filesystem whose mountpoint is DIR becomes mounted) and {@code umount DIR} (the mounted
     * filesystem there becomes unmounted; busy while held).
     */
    private CommandResult mountCommand(Command command, List<String> a) {
        switch (a.get(0)) {
            case "mkdir" -> {
                expect(a, a.size() == 3 && a.get(1).equals("-p"));
                return ok("");
            }
            case "mount" -> {
                expect(a, a.size() == 7 && a.subList(1, 5).equals(List.of("-t", "zfs", "-o", "zfsutil")));
                Dataset d = datasets.get(a.get(5));
                if (d == null || !isFilesystem(d) || !mountpoint(a.get(5)).equals(a.get(6))) {
                    throw failure(command, "filesystem '" + a.get(5) + "' cannot be mounted at '" + a.get(6) + "'");
                }
                if (d.mounted) {
                    throw failure(command, "mount: " + a.get(6) + ": " + a.get(5) + " already mounted");
                }
                d.mounted = true;
                return ok("");
            }
            default -> {
                expect(a, a.size() == 2);
                for (Map.Entry<String, Dataset> e : datasets.entrySet()) {
                    if (isFilesystem(e.getValue()) && e.getValue().mounted && mountpoint(e.getKey()).equals(a.get(1))) {
                        if (busy.refuse(e.getKey())) {
                            throw failure(command, "umount: " + a.get(1) + ": target is busy.");
                        }
                        e.getValue().mounted = false;
                        return ok("");
                    }
                }
                throw failure(command, "umount: " + a.get(1) + ": not mounted.");
            }
        }
    }

    /** {@code zfs create [-u] [-o p=v]... NAME}: a filesystem, mounted below its parent's mountpoint unless -u. */
    private CommandResult createFilesystem(Command command, String name, Map<String, String> properties) {
        String cannot = "cannot create '" + name + "': ";
        String poolName = name.split("/", 2)[0];
        if (!datasets.containsKey(poolName)) {
            throw failure(command, "cannot open '" + poolName + "': no such pool");
        }
        long refquota = checkFilesystemProperties(command, cannot, properties);
        String parent = name.substring(0, Math.max(0, name.lastIndexOf('/')));
        Dataset above = datasets.get(parent);
        if (above == null) {
            throw failure(command, cannot + "parent does not exist");
        }
        if (above.volume || above.snapshot) {
            throw failure(command, cannot + "parent is not a filesystem");
        }
        if (datasets.containsKey(name)) {
            throw failure(command, cannot + "dataset already exists");
        }
        Dataset fs = new Dataset(false, 0, 0, false);
        fs.refquota = refquota;
        fs.properties.putAll(properties);
        datasets.put(name, fs);
        return ok("");
    }

    private CommandResult create(Command command, List<String> a) {
        Long volsize = null;
        long volblocksize = 8192;
        boolean sparse = false;
        boolean noMount = false;
        Map<String, String> properties = new HashMap<>();
        int i = 2;
        for (; i < a.size() - 1; i++) {
            switch (a.get(i)) {
                case "-V" -> volsize = number(a, a.get(++i));
                case "-b" -> volblocksize = number(a, a.get(++i));
                case "-s" -> sparse = true;
                case "-u" -> noMount = true;
                case "-o" -> {
                    String[] kv = a.get(++i).split("=", 2);
                    expect(a, kv.length == 2);
                    properties.put(kv[0], kv[1]);
                }
                default -> throw notUnderstood(a);
            }
        }
        expect(a, i == a.size() - 1);
        String name = a.get(i);
        if (volsize == null) {
            CommandResult made = createFilesystem(command, name, properties);
            datasets.get(name).mounted = !noMount && autoMounts(properties);
            if (!noMount && autoMounts(properties)) {
                shareCommits.add(a); // zfs_do_create mounts and shares a filesystem made without -u
            }
            return made;
        }
        String cannot = "cannot create '" + name + "': ";
        String poolName = name.split("/", 2)[0];
        if (!datasets.containsKey(poolName)) {
            throw failure(command, "cannot open '" + poolName + "': no such pool");
        }
        // zfs 2.1.11 checks the properties before the dataset's existence (captured: create-badblocksize)
        for (Map.Entry<String, String> p : properties.entrySet()) {
            boolean valid = switch (p.getKey()) {
                case "volmode" -> VOLMODES.contains(p.getValue());
                case "compression" -> COMPRESSION.contains(p.getValue());
                default -> p.getKey().contains(":"); // a user property
            };
            if (!valid) {
                throw failure(command, cannot + "'" + p.getKey() + "' must be one of the documented values");
            }
        }
        if (volblocksize < 512 || volblocksize > 1024 * 1024 || Long.bitCount(volblocksize) != 1) {
            throw failure(command, cannot + "'volblocksize' must be power of 2 from 512B to 1M");
        }
        if (volsize == 0) {
            throw failure(command, cannot + "volume size cannot be zero");
        }
        String parent = name.substring(0, Math.max(0, name.lastIndexOf('/')));
        if (!datasets.containsKey(parent)) {
            throw failure(command, cannot + "parent does not exist");
        }
        if (datasets.containsKey(name)) {
            throw failure(command, cannot + "dataset already exists");
        }
        volsize = (volsize + volblocksize - 1) / volblocksize * volblocksize; // create rounds up, set refuses
        if (!sparse && refreservation(volsize, volblocksize) > available()) {
            throw failure(command, cannot + "out of space");
        }
        Dataset zvol = new Dataset(true, volsize, volblocksize, sparse);
        zvol.properties.putAll(properties);
        datasets.put(name, zvol);
        attachDevice(name, zvol);
        return ok("");
    }

    /**
     * {@code zfs get -Hp [-r -d 1 -t volume] -o COLUMNS PROPERTIES DATASET}: with {@code -r -d 1 -t volume}
     * the zvols directly below the dataset (not itself), each property a row, datasets in name order.
     */
    private CommandResult get(Command command, List<String> a) {
        boolean recursive = a.size() == 12 && a.subList(2, 9).equals(List.of("-Hp", "-r", "-d", "1", "-t", "volume", "-o"));
        boolean filesystems = a.size() == 12 && a.subList(2, 9).equals(List.of("-Hp", "-r", "-d", "1", "-t", "filesystem", "-o"));
        boolean snapshots = a.size() == 10 && a.subList(2, 7).equals(List.of("-Hp", "-r", "-t", "snapshot", "-o"));
        expect(a, recursive || filesystems || snapshots || (a.size() == 7 && a.get(2).equals("-Hp") && a.get(3).equals("-o")));
        List<String> columns = List.of(a.get(a.size() - 3).split(","));
        expect(a, columns.equals(List.of("name", "property", "value", "source")) || columns.equals(List.of("name", "property", "value"))
                || columns.equals(List.of("property", "value")));
        String name = a.getLast();
        if (!datasets.containsKey(name)) {
            throw failure(command, "cannot open '" + name + "': dataset does not exist");
        }
        List<String> names = snapshots
                ? datasets.entrySet().stream().filter(e -> e.getValue().snapshot && e.getKey().startsWith(name + "/"))
                        .map(Map.Entry::getKey).toList()
                : filesystems // the dataset itself too, as zfs does with -r -d 1
                ? datasets.entrySet().stream().filter(e -> isFilesystem(e.getValue()) && (e.getKey().equals(name)
                        || e.getKey().startsWith(name + "/") && e.getKey().indexOf('/', name.length() + 1) < 0)).map(Map.Entry::getKey).toList()
                : recursive
                ? datasets.entrySet().stream().filter(e -> e.getValue().volume && e.getKey().startsWith(name + "/")
                        && e.getKey().indexOf('/', name.length() + 1) < 0).map(Map.Entry::getKey).toList()
                : List.of(name);
        StringBuilder out = new StringBuilder();
        for (String dataset : names) {
            for (String property : a.get(a.size() - 2).split(",")) {
                String[] valueAndSource = valueAndSource(a, dataset, property);
                out.append(columns.getFirst().equals("name") ? dataset + "\t" : "").append(property).append('\t').append(valueAndSource[0])
                        .append(columns.size() == 4 ? "\t" + valueAndSource[1] : "").append('\n');
            }
        }
        return ok(out.toString());
    }

    private CommandResult list(Command command, List<String> a) {
        if (a.equals(List.of("zfs", "list", "-Hp", "-r", "-d", "1", "-t", "filesystem,volume", "-o", "name", a.getLast()))) {
            return children(command, a.getLast());
        }
        expect(a, a.size() == 11 && a.subList(2, 6).equals(List.of("-Hp", "-t", "volume", "-o"))
                && a.subList(7, 10).equals(List.of("-r", "-d", "1")));
        String parent = a.get(10);
        if (!datasets.containsKey(parent)) {
            throw failure(command, "cannot open '" + parent + "': dataset does not exist");
        }
        List<String> columns = List.of(a.get(6).split(","));
        String out = datasets.entrySet().stream()
                .filter(e -> e.getValue().volume && e.getKey().startsWith(parent + "/") && e.getKey().indexOf('/', parent.length() + 1) < 0)
                .map(e -> columns.stream().map(c -> c.equals("name") ? e.getKey() : value(a, e.getKey(), c)).collect(Collectors.joining("\t")))
                .map(line -> line + "\n")
                .collect(Collectors.joining());
        return ok(out);
    }

    /** {@code zfs list -Hp -r -d 1 -t filesystem,volume -o name DATASET}: itself and the datasets directly below it. */
    private CommandResult children(Command command, String name) {
        if (!datasets.containsKey(name)) {
            throw failure(command, "cannot open '" + name + "': dataset does not exist");
        }
        return ok(datasets.entrySet().stream().filter(e -> !e.getValue().snapshot && (e.getKey().equals(name)
                || e.getKey().startsWith(name + "/") && e.getKey().indexOf('/', name.length() + 1) < 0))
                .map(e -> e.getKey() + "\n").collect(Collectors.joining()));
    }

    private CommandResult set(Command command, List<String> a) {
        if (a.size() == 4 && a.get(2).startsWith("refquota=")) {
            return setRefquota(command, a);
        }
        if (a.size() == 4 && List.of("canmount=on", "canmount=noauto").contains(a.get(2))) {
            return setCanmount(command, a);
        }
        if (a.size() == 4 && a.get(2).matches("[a-z0-9_.-]+:[a-z0-9_.:-]+=.*")) {
            return setUserProperty(command, a);
        }
        expect(a, a.size() == 4 && a.get(2).startsWith("volsize="));
        long volsize = number(a, a.get(2).substring("volsize=".length()));
        String name = a.get(3);
        Dataset zvol = datasets.get(name);
        if (zvol == null) {
            throw failure(command, "cannot open '" + name + "': dataset does not exist");
        }
        String cannot = "cannot set property for '" + name + "': ";
        if (settling.refuse(name)) {
            throw failure(command, cannot + "dataset is busy");
        }
        if (!zvol.volume) {
            throw failure(command, cannot + "'volsize' does not apply to datasets of this type");
        }
        if (volsize % zvol.volblocksize != 0) {
            throw failure(command, cannot + "'volsize' must be a multiple of volume block size (" + zvol.volblocksize / 1024 + "K)");
        }
        if (!zvol.sparse && refreservation(volsize, zvol.volblocksize) - refreservation(zvol.volsize, zvol.volblocksize) > available()) {
            throw failure(command, cannot + "size is greater than available space");
        }
        zvol.volsize = volsize; // a smaller volsize shrinks the zvol, silently: zfs does exactly that
        if (zvol.minor >= 0 && Files.exists(sysBlock(zvol.minor))) {
            write(sysBlock(zvol.minor).resolve("size"), Long.toString(volsize / 512));
        }
        return ok("");
    }

    /** {@code zfs set module:property=value DATASET}: a user property set locally; nothing is mounted or shared. */
    private CommandResult setUserProperty(Command command, List<String> a) {
        String[] kv = a.get(2).split("=", 2);
        Dataset dataset = datasets.get(a.get(3));
        if (dataset == null) {
            throw failure(command, "cannot open '" + a.get(3) + "': dataset does not exist");
        }
        dataset.properties.put(kv[0], kv[1]);
        return ok("");
    }

    /** {@code zfs set canmount=on|noauto FS}: libzfs mounts, unmounts and shares nothing for these two values. */
    private CommandResult setCanmount(Command command, List<String> a) {
        String name = a.get(3);
        Dataset fs = datasets.get(name);
        if (fs == null) {
            throw failure(command, "cannot open '" + name + "': dataset does not exist");
        }
        if (!isFilesystem(fs)) {
            throw failure(command, "cannot set property for '" + name + "': 'canmount' does not apply to datasets of this type");
        }
        fs.properties.put("canmount", a.get(2).substring("canmount=".length()));
        return ok("");
    }

    /** {@code zfs set refquota=N FS}: any cap at or above what the filesystem holds (nothing, here). */
    private CommandResult setRefquota(Command command, List<String> a) {
        long refquota = number(a, a.get(2).substring("refquota=".length()));
        String name = a.get(3);
        Dataset fs = datasets.get(name);
        if (fs == null) {
            throw failure(command, "cannot open '" + name + "': dataset does not exist");
        }
        if (!isFilesystem(fs)) {
            throw failure(command, "cannot set property for '" + name + "': 'refquota' does not apply to datasets of this type");
        }
        fs.refquota = refquota;
        return ok("");
    }

    /**
     * {@code zfs destroy [-d|-r] NAME}: a zvol with snapshots needs {@code -r}; a snapshot with clones is
     * refused, or with {@code -d} deferred until its last clone goes; a clone's going destroys its
     * deferred origin once it was the last.
     */
    private CommandResult destroy(Command command, List<String> a) {
        expect(a, a.size() == 3 || (a.size() == 4 && List.of("-d", "-r").contains(a.get(2))));
        String flag = a.size() == 4 ? a.get(2) : "";
        String name = a.getLast();
        Dataset dataset = datasets.get(name);
        if (dataset == null) {
            throw failure(command, name.contains("@") ? "could not find any snapshots to destroy; check snapshot names."
                    : "cannot open '" + name + "': dataset does not exist");
        }
        if (dataset.snapshot && !clonesOf(dataset).isEmpty()) {
            if (flag.equals("-d")) {
                dataset.deferDestroy = true;
                return ok("");
            }
            throw failure(command, "cannot destroy '" + name + "': snapshot has dependent clones\nuse '-R' to destroy the following datasets:\n"
                    + String.join("\n", clonesOf(dataset)));
        }
        List<String> snapshotsOf = datasets.keySet().stream().filter(n -> n.startsWith(name + "@")).toList();
        if (!snapshotsOf.isEmpty()) {
            if (!flag.equals("-r")) {
                throw failure(command, "cannot destroy '" + name + "': " + (dataset.volume ? "volume" : "filesystem")
                        + " has children\nuse '-r' to destroy the following datasets:\n" + String.join("\n", snapshotsOf));
            }
            for (String snap : snapshotsOf) {
                if (!clonesOf(datasets.get(snap)).isEmpty()) {
                    throw failure(command, "cannot destroy '" + snap + "': snapshot has dependent clones");
                }
            }
        }
        if (isFilesystem(dataset)) {
            List<String> children = datasets.keySet().stream().filter(n -> n.startsWith(name + "/")).toList();
            if (!children.isEmpty()) {
                throw failure(command, "cannot destroy '" + name + "': filesystem has children\nuse '-r' to destroy the following datasets:\n"
                        + String.join("\n", children));
            }
            if (busy.refuse(name)) {
                throw failure(command, "cannot unmount '" + mountpoint(name) + "': pool or dataset is busy");
            }
        }
        if (probing.contains(name)) {
            refusedWhileProbed++;
            throw failure(command, "cannot destroy '" + name + "': dataset is busy");
        }
        if (busy.refuse(name)) {
            throw failure(command, "cannot destroy '" + name + "': dataset is busy");
        }
        if (isFilesystem(dataset) && dataset.mounted && mountpoint(name).startsWith("/")) {
            shareCommits.add(a); // zfs_unmount of the mounted filesystem commits the shares
        }
        snapshotsOf.forEach(datasets::remove);
        datasets.remove(name);
        Dataset origin = dataset.origin;
        if (origin != null && origin.deferDestroy && clonesOf(origin).isEmpty()) {
            datasets.values().removeIf(d -> d == origin);
        }
        if (dataset.minor >= 0) {
            try {
                Files.deleteIfExists(devRoot.resolve("zvol").resolve(name));
                Files.deleteIfExists(zd(dataset.minor));
                Files.deleteIfExists(sysBlock(dataset.minor).resolve("size"));
                Files.deleteIfExists(sysBlock(dataset.minor).resolve("diskseq"));
                Files.deleteIfExists(sysBlock(dataset.minor).resolve("dev"));
                Files.deleteIfExists(sysBlock(dataset.minor));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return ok("");
    }

    /** {@code /lib/udev/zvol_id /dev/zdN}: prints the dataset; a missing node fails with ENOENT. */
    private CommandResult zvolId(Command command, List<String> a) {
        expect(a, a.size() == 2);
        Path node = Path.of(a.get(1));
        if (!Files.exists(node)) {
            throw new CommandFailedException(command, 2, "", false); // it prints "Unable to access device file" on stdout
        }
        return datasets.entrySet().stream().filter(e -> e.getValue().minor >= 0 && zd(e.getValue().minor).equals(node)).findFirst()
                .map(e -> ok(e.getKey() + "\n"))
                .orElseThrow(() -> new CommandFailedException(command, 25, "", false)); // ENOTTY: not a zvol
    }

    // --- state ------------------------------------------------------------------------------------------

    /**
     * The value and its source as zfs prints them: volsize {@code local} on a zvol, other native
     * properties {@code -}; a user property {@code local} where set, {@code inherited from <ancestor>}
     * where an ancestor set it, else {@code -} and {@code -}.
     */
    private String[] valueAndSource(List<String> argv, String name, String property) {
        if (property.equals("sharenfs")) {
            return sharenfs(name);
        }
        if (!property.contains(":")) {
            String value = value(argv, name, property);
            boolean local = (property.equals("volsize") && !value.equals("-")) || (property.equals("refquota") && !value.equals("-")
                    && !value.equals("0"));
            return new String[] {value, local ? "local" : "-"};
        }
        for (String at = name; !at.isEmpty(); at = at.contains("@") ? at.substring(0, at.indexOf('@'))
                : at.substring(0, Math.max(0, at.lastIndexOf('/')))) {
            String value = datasets.get(at).properties.get(property);
            if (value != null) {
                return new String[] {value, at.equals(name) ? "local" : "inherited from " + at};
            }
            if (at.indexOf('/') < 0) {
                break;
            }
        }
        return new String[] {"-", "-"};
    }

    private String value(List<String> argv, String name, String property) {
        Dataset d = datasets.get(name);
        return switch (property) {
            case "volsize" -> d.volume || d.snapshot && d.ofVolume ? Long.toString(d.volsize) : "-";
            case "volblocksize" -> d.volume || d.snapshot && d.ofVolume ? Long.toString(d.volblocksize) : "-";
            case "defer_destroy" -> d.snapshot ? (d.deferDestroy ? "on" : "off") : "-";
            case "creation" -> Long.toString(d.creation);
            case "type" -> d.snapshot ? "snapshot" : d.volume ? "volume" : "filesystem";
            case "refquota" -> isFilesystem(d) ? Long.toString(d.refquota) : "-";
            case "mountpoint" -> isFilesystem(d) ? mountpoint(name) : "-";
            case "mounted" -> isFilesystem(d) ? (d.mounted && mountpoint(name).startsWith("/") ? "yes" : "no") : "-";
            case "available" -> Long.toString(available());
            case "used" -> Long.toString(used(name));
            case "receive_resume_token" -> d.resumeToken == null ? "-" : d.resumeToken;
            case "sharenfs" -> sharenfs(name)[0];
            default -> {
                expect(argv, property.contains(":"));
                yield valueAndSource(argv, name, property)[0]; // inherited values print too
            }
        };
    }

    /**
     * {@code sharenfs} as zfs prints it: a filesystem's own ({@code local}), else the nearest ancestor's
     * ({@code inherited from <ancestor>}), else {@code off} ({@code default}); {@code -} on a zvol or snapshot.
     */
    private String[] sharenfs(String name) {
        if (!isFilesystem(datasets.get(name))) {
            return new String[] {"-", "-"};
        }
        for (String at = name; !at.isEmpty(); at = at.contains("/") ? at.substring(0, at.lastIndexOf('/')) : "") {
            String value = datasets.get(at).properties.get("sharenfs");
            if (value != null) {
                return new String[] {value, at.equals(name) ? "local" : "inherited from " + at};
            }
        }
        return new String[] {"off", "default"};
    }

    /** A non-sparse zvol reserves its volsize plus metadata: 512 MiB with 8K blocks reserves 555,745,280 bytes. */
    /**
     * OpenZFS's zvol_volsize_to_reservation() for copies=1: the data plus room for every level of
     * indirect blocks (1024 pointers each, 128K, stored twice) and 7 more. 128 MiB with 8K blocks:
     * 140,509,184 bytes, as captured; 512 MiB: 555,745,280.
     */
    private static long refreservation(long volsize, long volblocksize) {
        long nblocks = volsize / volblocksize;
        long numdb = 7;
        while (nblocks > 1) {
            nblocks = (nblocks + 1023) / 1024;
            numdb += nblocks;
        }
        return volsize + numdb * 2 * (128 * 1024);
    }

    private long used(String name) {
        Dataset d = datasets.get(name);
        if (d.volume) {
            return d.sparse ? 0 : refreservation(d.volsize, d.volblocksize);
        }
        return datasets.keySet().stream().filter(child -> child.startsWith(name + "/") && datasets.get(child).volume)
                .mapToLong(this::used).sum();
    }

    private static boolean isFilesystem(Dataset d) {
        return !d.volume && !d.snapshot;
    }

    /**
     * Where a filesystem is mounted: below the nearest ancestor (or itself) with a {@code mountpoint} set
     * ({@link #withProperty}), {@code none} and {@code legacy} as they are; else {@code /<name>}, zfs's default.
     */
    private String mountpoint(String name) {
        for (String at = name; !at.isEmpty(); at = at.contains("/") ? at.substring(0, at.lastIndexOf('/')) : "") {
            String set = datasets.get(at).properties.get("mountpoint");
            if (set != null) {
                return set.startsWith("/") ? set + name.substring(at.length()) : set;
            }
        }
        return "/" + name;
    }

    private void attachDevice(String name, Dataset zvol) {
        if (devices == Devices.NEVER) {
            return;
        }
        int minor = 0;
        while (true) {
            int candidate = minor;
            if (datasets.values().stream().noneMatch(d -> d.minor == candidate)) {
                break;
            }
            minor += 16;
        }
        zvol.minor = minor;
        int chosen = minor;
        Runnable make = () -> {
            synchronized (this) {
                if (datasets.get(name) != zvol) {
                    return; // destroyed meanwhile
                }
                write(zd(chosen), "");
                write(sysBlock(chosen).resolve("size"), Long.toString(zvol.volsize / 512));
                write(sysBlock(chosen).resolve("diskseq"), Long.toString(++diskseq));
                write(sysBlock(chosen).resolve("dev"), ZVOL_MAJOR + ":" + chosen + "\n");
                if (devices == Devices.UDEV) {
                    Path link = devRoot.resolve("zvol").resolve(name);
                    try {
                        Files.createDirectories(link.getParent());
                        Files.createSymbolicLink(link, zd(chosen));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        };
        if (deviceDelay.isZero()) {
            make.run();
        } else {
            Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(deviceDelay);
                } catch (InterruptedException e) {
                    return;
                }
                make.run();
            });
        }
    }

    private Path sysBlock(int minor) {
        return sysRoot.resolve("block").resolve("zd" + minor);
    }

    private static void write(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long number(List<String> argv, String text) {
        expect(argv, text.matches("[0-9]{1,19}"));
        return Long.parseLong(text);
    }

    private static CommandResult ok(String stdout) {
        return new CommandResult(stdout, "");
    }

    private static CommandFailedException failure(Command command, String stderr) {
        return new CommandFailedException(command, FAILED, stderr + "\n", false);
    }

    private static void expect(List<String> argv, boolean understood) {
        if (!understood) {
            throw notUnderstood(argv);
        }
    }

    private static IllegalArgumentException notUnderstood(List<String> argv) {
        return new IllegalArgumentException("the fake zfs does not understand " + argv);
    }
}
