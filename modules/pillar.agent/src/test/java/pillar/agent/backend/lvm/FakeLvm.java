package pillar.agent.backend.lvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import pillar.agent.backend.Backends;
import pillar.agent.backend.Holds;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/**
 * A stateful fake of the LVM tools behind the {@link ProcessRunner} port: one volume group with
 * linear LVs and thin pools, kept in memory, with a regular file standing for each active LV's device
 * node under a temporary device root. It understands exactly the argument lists
 * {@link LvmBackend} emits and answers in LVM 2.03's formats, exit statuses and messages (as
 * captured in {@code lvm/}); any other argument list fails the test. Every command is recorded.
 *
 * <p>Linear LVs and thin pools take physical space ({@link FakeExtents}): a linear LV made where a
 * removed one was shows that one's bytes unless they were zeroed, with {@code blkdiscard --zeroout}
 * (the one other program it understands). Thin LVs read zeroes when new; their pool's chunk reuse
 * is not modelled, only its {@code zero} setting as lvs reports it. Thin snapshots ({@code lvcreate -s})
 * behave as {@code LvmSnapshotKernelIT#whatLvm2DoesWithThinSnapshots} pins lvm2 2.03.16: only the tags
 * given (none copied from the origin), activation skipped ('k', inactive) unless {@code -kn}, the
 * origin's size and bytes, and no dependency on the origin (either can be removed first).
 */
public final class FakeLvm implements ProcessRunner {
    static final long EXTENT = 4L << 20;
    /** How lvs prints lv_time (report/time_format {@code %Y-%m-%d %T %z}). */
    private static final DateTimeFormatter LV_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss Z", Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    /** When the first LV is made; each next one a second later. */
    static final Instant FIRST_TIME = Instant.parse("2026-12-03T10:00:00Z");
    private Instant clock = FIRST_TIME;
    private static final int ECMD_FAILED = 5;
    private static final int EINVALID_CMD_LINE = 3;

    private final String vg;
    private final long vgSize;
    private final Path devRoot;
    private final Map<String, Lv> lvs = new TreeMap<>(); // lvs sorts by name
    private final Holds busy = new Holds();
    private final List<Command> commands = new ArrayList<>();
    private final List<String> created = new ArrayList<>();
    private long extent = EXTENT;
    private final FakeExtents space;
    private int interruptedZeroings;
    private final List<long[]> zeroings = new ArrayList<>();

    private static final class Lv {
        final String name;
        long size;
        final List<String> tags;
        final String pool; // "" unless thin
        final boolean thinPool;
        boolean active = true;
        boolean skipActivation; // lv_attr 'k': thin snapshots unless made with -kn
        byte[] data = new byte[0]; // a thin LV's bytes while it has no node (inactive)
        Instant time = Instant.EPOCH;
        boolean zeroing = true; // thin pools: zero new chunks
        long dataUsed; // thin pools: bytes of data written
        double metadataPercent = 10.25; // thin pools: as lvs -o metadata_percent shows it

        Lv(String name, long size, List<String> tags, String pool, boolean thinPool) {
            this.name = name;
            this.size = size;
            this.tags = new ArrayList<>(tags);
            this.pool = pool;
            this.thinPool = thinPool;
        }
    }

    /** A volume group of {@code vgSize} bytes (4 MiB extents); LV nodes go to {@code devRoot/<vg>/<lv>}. */
    public FakeLvm(String vg, long vgSize, Path devRoot) {
        this.vg = vg;
        this.vgSize = vgSize;
        this.devRoot = devRoot;
        this.space = new FakeExtents(vgSize);
    }

    // --- the test's side ----------------------------------------------------------------------------

    /** The host the backends must be given: LVM makes {@code <vg>/<lv>} below this fake's device root. */
    public Backends.Host host() {
        return new Backends.Host(devRoot, devRoot.resolveSibling("sys"), Path.of("/lib/udev/zvol_id"), Duration.ofSeconds(30),
                Duration.ofSeconds(5));
    }

    public synchronized FakeLvm withThinPool(String name, long size) {
        lvs.put(name, new Lv(name, size, List.of(), "", true));
        space.allocate(name, size);
        return this;
    }

    /** As {@code lvchange --zero y|n VG/POOL}: whether the thin pool zeroes new chunks. */
    public synchronized void setZeroing(String pool, boolean zero) {
        lvs.get(pool).zeroing = zero;
    }

    /** The next {@code times} blkdiscard runs are killed at their deadline after zeroing half of their range. */
    synchronized void interruptZeroing(int times) {
        interruptedZeroings = times;
    }

    /** The physical byte ranges of an LV ({@code lvs -o seg_pe_ranges}, in bytes). */
    synchronized List<String> ranges(String name) {
        return space.ranges(name);
    }

    /** As {@code vgchange -s}: the group's extent size from now on (existing sizes must be multiples). */
    synchronized void changeExtentSize(long bytes) {
        extent = bytes;
    }

    /** An LV someone else made (no tag), linear or thin. */
    synchronized void addForeign(String name, long size, String pool) {
        lvs.put(name, new Lv(name, size, List.of(), pool, false));
        place(name, size, pool);
    }

    /** An LV with our tags but in the given pool ("" = linear), as the other kind of backend would make it. */
    synchronized void addTagged(String name, long size, String pool) {
        addTagged(name, size, pool, List.of(LvmBackend.TAG, LvmBackend.INSTALLATION_TAG + "embedded"));
    }

    /** An LV with these tags in the given pool ("" = linear): another installation's, or an older one's. */
    synchronized void addTagged(String name, long size, String pool, List<String> tags) {
        lvs.put(name, new Lv(name, size, List.copyOf(tags), pool, false));
        place(name, size, pool);
    }

    /** The LV's tags, as {@code lvs -o lv_tags} shows them. */
    public synchronized List<String> tags(String name) {
        return lvs.get(name).tags;
    }

    /** As after a reboot without auto-activation: inactive, no device node. */
    synchronized void deactivate(String name) {
        keepBytes(lvs.get(name));
        lvs.get(name).active = false;
        deleteNode(name);
    }

    /** An open LV (an nvmet namespace, a mount or a process holds it): lvremove refuses, lv_attr shows 'o'. */
    public synchronized void markBusy(String name) {
        busy.hold(name);
    }

    /** Held for a moment (udev's probe, the kernel's release): the next {@code removals} removals are refused. */
    synchronized void markBusy(String name, int removals) {
        busy.hold(name, removals);
    }

    /** A thin pool filled to these percentages of its data and metadata areas (lvs data_percent, metadata_percent). */
    public synchronized FakeLvm setUsage(String pool, double dataPercent, double metadataPercent) {
        Lv lv = lvs.get(pool);
        lv.dataUsed = Math.round(lv.size * dataPercent / 100);
        lv.metadataPercent = metadataPercent;
        return this;
    }

    /** As an operator's {@code lvremove -f VG/LV} behind the agent's back: the LV and its node are gone. */
    public synchronized void removeBehindTheAgent(String name) {
        Lv lv = lvs.remove(name);
        if (lv != null && lv.pool.isEmpty() && !lv.thinPool) {
            space.release(name);
        }
        deleteNode(name);
    }

    synchronized void writeToThinPool(String pool, long bytes) {
        lvs.get(pool).dataUsed += bytes;
    }

    /** The names of every LV of the group, the thin pool's included, as {@code lvs} sorts them. */
    public synchronized List<String> names() {
        return List.copyOf(lvs.keySet());
    }

    /** Whether the LV is active (it has its device node). */
    synchronized boolean active(String name) {
        return lvs.get(name).active;
    }

    public synchronized boolean exists(String name) {
        return lvs.containsKey(name);
    }

    public synchronized long sizeOf(String name) {
        return lvs.get(name).size;
    }

    public synchronized List<List<String>> argvs() {
        return commands.stream().map(Command::argv).toList();
    }

    /** How many times lvcreate made an LV of this name (a refused lvcreate makes none). */
    public synchronized long creations(String name) {
        return created.stream().filter(name::equals).count();
    }

    synchronized List<String> programs() {
        return commands.stream().map(Command::program).toList();
    }

    synchronized long free() {
        return vgSize - lvs.values().stream().filter(lv -> lv.pool.isEmpty()).mapToLong(lv -> lv.size).sum();
    }

    Path node(String name) {
        return devRoot.resolve(vg).resolve(name);
    }

    // --- the tools ------------------------------------------------------------------------------------

    /**
     * Runs {@code action} once, on the caller's thread, right after the next {@code lvs} of {@code name} has
     * answered (outside the fake's lock, so that another thread's commands may run meanwhile): the moment
     * between an agent's read and what it does with it, for races.
     */
    public void afterNextLvsOf(String name, Runnable action) {
        afterLvs.set(new java.util.AbstractMap.SimpleEntry<>(vg + "/" + name, action));
    }

    /** As {@link #afterNextLvsOf}, after the next {@code lvs} of the whole volume group. */
    public void afterNextLvsOfTheGroup(Runnable action) {
        afterLvs.set(new java.util.AbstractMap.SimpleEntry<>(vg, action));
    }

    private final java.util.concurrent.atomic.AtomicReference<Map.Entry<String, Runnable>> afterLvs =
            new java.util.concurrent.atomic.AtomicReference<>();

    @Override
    public CommandResult run(Command command) {
        CommandResult result = runLocked(command);
        Map.Entry<String, Runnable> hook = afterLvs.get();
        List<String> a = command.argv();
        if (hook != null && a.getFirst().equals("lvs") && a.getLast().equals(hook.getKey()) && afterLvs.compareAndSet(hook, null)) {
            hook.getValue().run();
        }
        return result;
    }

    private synchronized CommandResult runLocked(Command command) {
        commands.add(command);
        List<String> a = command.argv();
        return switch (a.get(0)) {
            case "lvs" -> lvs(command, a);
            case "vgs" -> vgs(command, a);
            case "lvcreate" -> a.contains("-s") ? snapshot(command, a) : lvcreate(command, a);
            case "lvextend" -> lvextend(command, a);
            case "lvremove" -> lvremove(command, a);
            case "lvchange" -> lvchange(command, a);
            case "blkdiscard" -> blkdiscard(command, a);
            default -> throw notUnderstood(a);
        };
    }

    private CommandResult lvs(Command command, List<String> a) {
        expect(a, a.size() == 9 && a.subList(1, 7).equals(List.of("--reportformat", "json", "--units", "b", "--nosuffix", "-o")));
        List<String> fields = List.of(a.get(7).split(","));
        String target = a.get(8);
        String[] parts = target.split("/", 2);
        if (!parts[0].equals(vg)) {
            throw vgNotFound(command, parts[0]);
        }
        List<Lv> rows;
        if (parts.length == 2) {
            Lv lv = lvs.get(parts[1]);
            if (lv == null) {
                throw failure(command, ECMD_FAILED, "  Failed to find logical volume \"" + target + "\"\n");
            }
            rows = List.of(lv);
        } else {
            rows = List.copyOf(lvs.values());
        }
        return ok(report("lv", rows.stream().map(lv -> row(lvFields(lv), fields, a)).toList()));
    }

    private CommandResult vgs(Command command, List<String> a) {
        expect(a, a.size() == 9 && a.subList(1, 7).equals(List.of("--reportformat", "json", "--units", "b", "--nosuffix", "-o")));
        if (!a.get(8).equals(vg)) {
            throw vgNotFound(command, a.get(8));
        }
        Map<String, String> values = Map.of("vg_name", vg, "vg_size", Long.toString(vgSize), "vg_free", Long.toString(free()),
                "vg_extent_size", Long.toString(extent));
        return ok(report("vg", List.of(row(values, List.of(a.get(7).split(",")), a))));
    }

    private CommandResult lvcreate(Command command, List<String> a) {
        String name = null;
        String pool = null;
        Long size = null;
        boolean thin = false;
        boolean zero = false;
        List<String> tags = new ArrayList<>();
        int i = 1;
        for (; i < a.size() - 1; i++) {
            switch (a.get(i)) {
                case "-y" -> { }
                case "--wipesignatures" -> expect(a, a.get(++i).equals("y"));
                case "--zero" -> {
                    expect(a, a.get(++i).equals("y"));
                    zero = true;
                }
                case "--addtag" -> tags.add(a.get(++i));
                case "-n" -> name = a.get(++i);
                case "-L" -> size = bytes(command, a.get(++i), "--size");
                case "-V" -> {
                    size = bytes(command, a.get(++i), "--virtualsize");
                    thin = true;
                }
                case "--thinpool" -> pool = a.get(++i);
                default -> throw notUnderstood(a);
            }
        }
        expect(a, i == a.size() - 1 && name != null && size != null && thin == (pool != null));
        String group = a.get(i);
        for (String reserved : List.of("snapshot", "pvmove")) {
            if (name.startsWith(reserved)) {
                throw failure(command, EINVALID_CMD_LINE, "  Names starting \"" + reserved
                        + "\" are reserved. Please choose a different LV name.\n  Run `lvcreate --help' for more information.\n");
            }
        }
        if (thin && zero) {
            throw failure(command, EINVALID_CMD_LINE,
                    "  --zero is supported only with thin pool creation.\n  Run `lvcreate --help' for more information.\n");
        }
        if (!group.equals(vg)) {
            throw vgNotFound(command, group);
        }
        if (lvs.containsKey(name)) {
            throw failure(command, ECMD_FAILED, "  Logical Volume \"" + name + "\" already exists in volume group \"" + vg + "\"\n");
        }
        if (thin && (!lvs.containsKey(pool) || !lvs.get(pool).thinPool)) {
            throw failure(command, ECMD_FAILED, "  Pool " + pool + " not found in Volume group " + vg + ".\n");
        }
        long extents = (size + extent - 1) / extent;
        if (!thin && extents > free() / extent) {
            throw failure(command, ECMD_FAILED, "  Volume group \"" + vg + "\" has insufficient free space (" + free() / extent
                    + " extents): " + extents + " required.\n");
        }
        lvs.put(name, new Lv(name, extents * extent, List.copyOf(tags), thin ? pool : "", false));
        lvs.get(name).time = tick();
        created.add(name);
        place(name, extents * extent, thin ? pool : "");
        if (zero) {
            FakeExtents.zeroFirstBlock(node(name));
        }
        // LVM says so when it rounds (log_print: stdout), e.g. "Rounding up size to full physical extent 8.00 MiB"
        String rounding = size % extent == 0 ? ""
                : String.format(Locale.ROOT, "  Rounding up size to full physical extent %.2f MiB\n", extents * extent / (double) (1 << 20));
        return ok(rounding + "  Logical volume \"" + name + "\" created.\n");
    }

    private CommandResult lvextend(Command command, List<String> a) {
        expect(a, a.size() == 4 && a.get(1).equals("-L"));
        long size = bytes(command, a.get(2), "--size");
        Lv lv = existing(command, a.get(3), true);
        long current = lv.size / extent;
        long wanted = (size + extent - 1) / extent;
        if (wanted == current) {
            throw failure(command, ECMD_FAILED, "  New size (" + wanted + " extents) matches existing size (" + current + " extents).\n");
        }
        if (wanted < current) {
            throw failure(command, ECMD_FAILED, "  New size given (" + wanted + " extents) not larger than existing size (" + current
                    + " extents)\n");
        }
        if (lv.pool.isEmpty() && wanted - current > free() / extent) {
            throw failure(command, ECMD_FAILED, "  Insufficient free space: " + (wanted - current) + " extents needed, but only "
                    + free() / extent + " available\n");
        }
        if (lv.pool.isEmpty()) {
            keepBytes(lv);
            space.allocate(lv.name, (wanted - current) * extent);
            space.load(lv.name, node(lv.name));
        }
        lv.size = wanted * extent;
        return ok("  Size of logical volume " + a.get(3) + " changed.\n  Logical volume " + a.get(3) + " successfully resized.\n");
    }

    private CommandResult lvremove(Command command, List<String> a) {
        expect(a, a.size() == 3 && a.get(1).equals("-f"));
        Lv lv = existing(command, a.get(2), false);
        if (busy.refuse(lv.name)) {
            throw failure(command, ECMD_FAILED, "  Logical volume " + a.get(2) + " in use.\n");
        }
        lvs.remove(lv.name);
        keepBytes(lv);
        space.release(lv.name);
        deleteNode(lv.name);
        return ok("  Logical volume \"" + lv.name + "\" successfully removed.\n");
    }

    private CommandResult lvchange(Command command, List<String> a) {
        if (a.get(1).equals("--deltag") || a.get(1).equals("--addtag")) {
            return retag(command, a);
        }
        expect(a, a.size() == 4 && a.get(1).equals("-ay") && a.get(2).equals("-K"));
        Lv lv = existing(command, a.get(3), false);
        if (!lv.active) {
            lv.active = true;
            createNode(lv.name);
            if (lv.pool.isEmpty()) {
                space.load(lv.name, node(lv.name));
            } else {
                write(node(lv.name), lv.data);
            }
        }
        return ok("");
    }

    /**
     * {@code lvchange --deltag T... --addtag T... VG/LV}, in one metadata commit: a tag the LV does not
     * carry is no error to delete, nor one it carries to add (it is not doubled).
     */
    private CommandResult retag(Command command, List<String> a) {
        List<String> gone = new ArrayList<>();
        List<String> added = new ArrayList<>();
        int i = 1;
        for (; i < a.size() - 1; i += 2) {
            expect(a, a.get(i).equals("--deltag") || a.get(i).equals("--addtag"));
            (a.get(i).equals("--deltag") ? gone : added).add(a.get(i + 1));
        }
        expect(a, i == a.size() - 1);
        Lv lv = existing(command, a.get(i), false);
        lv.tags.removeAll(gone);
        added.stream().filter(t -> !lv.tags.contains(t)).forEach(lv.tags::add);
        return ok("  Logical volume " + a.get(i) + " changed.\n");
    }

    /**
     * {@code lvcreate -y -s [-kn] --addtag T... -n NAME VG/ORIGIN}: a thin snapshot of a thin LV, in its
     * pool, of its size and with its bytes; skipping activation (inactive, attr 'k') unless {@code -kn}.
     */
    private CommandResult snapshot(Command command, List<String> a) {
        expect(a, a.size() >= 6 && a.subList(0, 3).equals(List.of("lvcreate", "-y", "-s")));
        boolean activate = false;
        String name = null;
        List<String> tags = new ArrayList<>();
        int i = 3;
        for (; i < a.size() - 1; i++) {
            switch (a.get(i)) {
                case "-kn" -> activate = true;
                case "--addtag" -> tags.add(a.get(++i));
                case "-n" -> name = a.get(++i);
                default -> throw notUnderstood(a);
            }
        }
        expect(a, i == a.size() - 1 && name != null);
        String[] origin = a.get(i).split("/", 2);
        expect(a, origin.length == 2);
        if (!origin[0].equals(vg)) {
            throw vgNotFound(command, origin[0]);
        }
        for (String reserved : List.of("snapshot", "pvmove")) {
            if (name.startsWith(reserved)) {
                throw failure(command, EINVALID_CMD_LINE, "  Names starting \"" + reserved
                        + "\" are reserved. Please choose a different LV name.\n  Run `lvcreate --help' for more information.\n");
            }
        }
        Lv from = lvs.get(origin[1]);
        if (from == null) {
            throw failure(command, ECMD_FAILED, "  Snapshot origin LV " + origin[1] + " not found in Volume group " + vg + ".\n");
        }
        if (from.pool.isEmpty()) {
            throw failure(command, EINVALID_CMD_LINE, "  Please specify either size or extents with snapshots.\n"
                    + "  Run `lvcreate --help' for more information.\n");
        }
        if (lvs.containsKey(name)) {
            throw failure(command, ECMD_FAILED, "  Logical Volume \"" + name + "\" already exists in volume group \"" + vg + "\"\n");
        }
        byte[] bytes = from.active ? read(node(from.name)) : from.data;
        Lv lv = new Lv(name, from.size, new ArrayList<>(tags), from.pool, false);
        lv.time = tick();
        lv.skipActivation = !activate;
        lv.active = activate;
        lv.data = bytes;
        lvs.put(name, lv);
        created.add(name);
        if (activate) {
            write(node(name), bytes);
        }
        return ok("  Logical volume \"" + name + "\" created.\n");
    }

    private Instant tick() {
        Instant now = clock;
        clock = clock.plusSeconds(1);
        return now;
    }

    private static byte[] read(Path file) {
        try {
            return Files.exists(file) ? Files.readAllBytes(file) : new byte[0];
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void write(Path file, byte[] bytes) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code blkdiscard --zeroout [--offset O --length L] DEVICE}: the LV reads zeroes there (all of it without a
     * range; a range past the end stops at it, as util-linux clips it); half of the range when interrupted.
     * Refused as util-linux 2.38 refuses, with its words ({@code LvmLinearCloneKernelIT#rangedBlkdiscardAnswersAsTheFakeDoes}):
     * an offset or length not a multiple of 512, an offset past the end.
     */
    private CommandResult blkdiscard(Command command, List<String> a) {
        boolean ranged = a.size() == 7;
        expect(a, (a.size() == 3 || ranged && a.get(2).equals("--offset") && a.get(4).equals("--length")) && a.get(1).equals("--zeroout"));
        Path device = Path.of(a.getLast());
        Lv lv = lvs.values().stream().filter(l -> l.active && !l.thinPool && node(l.name).equals(device)).findFirst()
                .orElseThrow(() -> failure(command, 1, "blkdiscard: cannot open " + device + ": No such file or directory\n"));
        long offset = ranged ? Long.parseLong(a.get(3)) : 0;
        long length = ranged ? Long.parseLong(a.get(5)) : lv.size;
        if (offset % 512 != 0 || length % 512 != 0) {
            throw failure(command, 1, "blkdiscard: " + device + ": " + (offset % 512 != 0 ? "offset " + offset : "length " + length)
                    + " is not aligned to sector size 512\n");
        }
        if (offset > lv.size) {
            throw failure(command, 1, "blkdiscard: " + device + ": offset is greater than device size\n");
        }
        long end = Math.min(lv.size, offset + length);
        zeroings.add(new long[] {offset, end});
        try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(device, java.nio.file.StandardOpenOption.WRITE)) {
            if (interruptedZeroings > 0) {
                interruptedZeroings--;
                zeroRange(file, offset, offset + (end - offset) / 2);
                throw new CommandFailedException(command, -1, "", true);
            }
            zeroRange(file, offset, end);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return ok("");
    }

    /** Zeroes {@code [from, to)} of a node file; past its end it reads zeroes already. */
    private static void zeroRange(java.nio.channels.FileChannel file, long from, long to) throws IOException {
        long size = file.size();
        if (to >= size) {
            file.truncate(Math.min(size, from));
            return;
        }
        java.nio.ByteBuffer zeroes = java.nio.ByteBuffer.allocate(1 << 20);
        for (long at = from; at < to; at += zeroes.capacity()) {
            file.write(zeroes.clear().limit((int) Math.min(zeroes.capacity(), to - at)), at);
        }
    }

    /** The ranges blkdiscard zeroed, {@code [from, to)} each, in order. */
    synchronized List<long[]> zeroings() {
        return List.copyOf(zeroings);
    }

    /** A new or added LV's place: linear ones take extents and show the bytes found there. */
    private void place(String name, long size, String pool) {
        createNode(name);
        if (pool.isEmpty()) {
            space.allocate(name, size);
            space.load(name, node(name));
        }
    }

    /** Before an active linear LV's node goes away or grows: its bytes go back to the disk. */
    private void keepBytes(Lv lv) {
        if (lv.pool.isEmpty() && !lv.thinPool && lv.active && Files.exists(node(lv.name))) {
            space.store(lv.name, node(lv.name));
        } else if (!lv.pool.isEmpty() && lv.active) {
            lv.data = read(node(lv.name));
        }
    }

    // --- formats ----------------------------------------------------------------------------------------

    private Map<String, String> lvFields(Lv lv) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("lv_name", lv.name);
        // lv_path as LVM prints it: absolute, here below the fake's device root
        f.put("lv_path", lv.thinPool ? "" : node(lv.name).toString());
        f.put("lv_size", Long.toString(lv.size));
        f.put("lv_tags", String.join(",", lv.tags));
        f.put("pool_lv", lv.pool);
        String active = lv.active ? "a" : "-";
        String open = lv.active && busy.held(lv.name) ? "o" : "-"; // device-mapper's open count: only an active LV has a device
        f.put("lv_attr", lv.thinPool ? "twi-aotz--" : lv.pool.isEmpty() ? "-wi-" + active + open + "----"
                : "Vwi-" + active + open + "tz-" + (lv.skipActivation ? "k" : "-"));
        f.put("vg_extent_size", Long.toString(extent));
        f.put("lv_time", LV_TIME.format(lv.time));
        f.put("zero", lv.thinPool ? (lv.zeroing ? "zero" : "") : "unknown");
        f.put("data_percent", lv.thinPool ? String.format(Locale.ROOT, "%.2f", 100.0 * lv.dataUsed / lv.size)
                : lv.pool.isEmpty() ? "" : "0.00");
        f.put("metadata_percent", lv.thinPool ? String.format(Locale.ROOT, "%.2f", lv.metadataPercent) : "");
        return f;
    }

    private static String row(Map<String, String> values, List<String> fields, List<String> argv) {
        return fields.stream().map(field -> {
            String value = values.get(field);
            if (value == null) {
                throw new IllegalArgumentException("the fake lvm knows no field " + field + " (in " + argv + ")");
            }
            return "\"" + field + "\":\"" + value + "\"";
        }).collect(Collectors.joining(", ", "{", "}"));
    }

    /** The layout of LVM 2.03's {@code --reportformat json}. */
    private static String report(String section, List<String> rows) {
        StringBuilder out = new StringBuilder("  {\n      \"report\": [\n          {\n              \"" + section + "\": [\n");
        for (int i = 0; i < rows.size(); i++) {
            out.append("                  ").append(rows.get(i)).append(i < rows.size() - 1 ? ",\n" : "\n");
        }
        return out.append("              ]\n          }\n      ]\n  }\n").toString();
    }

    private Lv existing(Command command, String target, boolean lvextendWording) {
        String[] parts = target.split("/", 2);
        expect(command.argv(), parts.length == 2);
        if (!parts[0].equals(vg)) {
            throw vgNotFound(command, parts[0]);
        }
        Lv lv = lvs.get(parts[1]);
        if (lv == null) {
            throw failure(command, ECMD_FAILED, lvextendWording
                    ? "  Logical volume " + parts[1] + " not found in volume group " + vg + ".\n"
                    : "  Failed to find logical volume \"" + target + "\"\n");
        }
        return lv;
    }

    private static long bytes(Command command, String value, String option) {
        expect(command.argv(), value.matches("[0-9]+b"));
        long bytes = Long.parseLong(value.substring(0, value.length() - 1));
        if (bytes % 512 != 0) {
            throw failure(command, EINVALID_CMD_LINE, "  Size is not a multiple of 512. Try using " + bytes / 512 * 512 + " or "
                    + (bytes / 512 + 1) * 512 + ".\n  Invalid argument for " + option + ": " + value + "\n  Error during parsing of command line.\n");
        }
        return bytes;
    }

    private void createNode(String name) {
        try {
            Files.createDirectories(node(name).getParent());
            if (!Files.exists(node(name))) {
                Files.createFile(node(name));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void deleteNode(String name) {
        try {
            Files.deleteIfExists(node(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static CommandResult ok(String stdout) {
        return new CommandResult(stdout, "");
    }

    private static CommandFailedException vgNotFound(Command command, String group) {
        return failure(command, ECMD_FAILED, "  Volume group \"" + group + "\" not found\n  Cannot process volume group " + group + "\n");
    }

    private static CommandFailedException failure(Command command, int status, String stderr) {
        return new CommandFailedException(command, status, stderr, false);
    }

    private static void expect(List<String> argv, boolean understood) {
        if (!understood) {
            throw notUnderstood(argv);
        }
    }

    private static IllegalArgumentException notUnderstood(List<String> argv) {
        return new IllegalArgumentException("the fake lvm does not understand " + argv);
    }
}
