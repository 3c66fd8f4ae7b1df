package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.api.value.Nqn;

/**
 * The fence on the real kernel: after {@link NvmetTarget#disallowHost} a host that was connected and
 * writing (ext4 mounted, or the raw block device) cannot write any more, within a bounded time; the
 * next node connects and its data reads back with its checksum; a host that stays allowed loses no
 * write and its pause is measured.
 *
 * <p><b>One kernel plays both nodes.</b> Both host NQNs connect from this VM's kernel, and Debian enables
 * native NVMe multipath: two live controllers of one subsystem would be two paths of one head device,
 * and the revoked node's queued I/O could complete over the other node's path, which real separate
 * hosts cannot do. So the nodes take turns, as an unpublish then a publish does: A connects and
 * writes; A is revoked and B allowed; A's next O_DIRECT write must fail within {@link #FENCED_WITHIN}
 * (A's host gives up after {@code ctrl_loss_tmo=5}); only once A's controller is gone (and its mount
 * detached) does B connect, read what A wrote before the fence and write its own. The block test first
 * re-proves the kernel fact the fence rests on: with only the {@code allowed_hosts} link removed (the
 * old disallow) A's write still succeeds, so these tests fail if the re-link is missing.
 */
class FencingKernelIT {
    private static final PortId PORT = PortId.of(60_041);
    private static final PortAddress ADDRESS = PortAddress.tcp("127.0.0.1", 4491);
    private static final NamespaceId NSID = NamespaceId.of(1);
    private static final Nqn HOST_A = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:contract-fence-node-a");
    private static final Nqn HOST_B = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:contract-fence-node-b");
    /** The node's reconnect settings in these tests: retry every second, give up after five. */
    private static final String HOST_OPTIONS = "reconnect_delay=1,ctrl_loss_tmo=5";
    private static final Duration FENCED_WITHIN = Duration.ofSeconds(15);
    private static final Duration WRITE_DEADLINE = Duration.ofSeconds(30);
    private static final Duration COMMAND_DEADLINE = Duration.ofMinutes(1);

    @TempDir
    static Path work;
    private static Path loop;

    private final ConfigfsTree tree = new KernelConfigfsTree();
    private final ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(KernelBed.CONFIGFS);
    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final SystemProcessRunner runner = new SystemProcessRunner();
    private final Random random = new Random();
    private final List<String> controllers = new ArrayList<>();
    private final List<Path> mounts = new ArrayList<>();
    private final List<String> delayed = new ArrayList<>();
    private BlockWrites writes;

    @BeforeAll
    static void bed() throws IOException {
        KernelBed.requireVm();
        assertThat(Path.of("/dev/nvme-fabrics")).as("the NVMe over Fabrics initiator (module nvme-tcp)").exists();
        loop = KernelBed.loopDevice(work, "fence", 64L << 20);
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Path mount : mounts) {
            runner.run(Command.of(COMMAND_DEADLINE, "umount", "--lazy", mount.toString()));
        }
        for (String controller : controllers) {
            initiator.disconnect(controller, Duration.ofSeconds(20));
        }
        KernelBed.wipe(tree);
        for (String name : delayed) {
            run("dmsetup", "remove", "--noudevsync", name);
        }
    }

    /**
     * The drain: a write node A sent before its unpublish, held 3 s by a slow device (dm-delay under the
     * namespace), has reached the device when {@link NvmetTarget#disallowHost} returns, so the next
     * node's write to the same block is the last one. B's write goes to the storage under the delay: one
     * kernel cannot be both nodes on one subsystem (multipath, see above), and a write B sent through the
     * same uniform delay would queue behind A's anyway; this is the next node whose path is fast. Without
     * the drain, A's delayed write lands after B's and block 0 reads A's data.
     */
    @Test
    void anUnpublishDrainsTheFencedNodesWriteFromASlowDevice() throws Exception {
        Nqn subsystem = Nqn.of("nqn.2024-06.io.pillar-csi:contract-fence-drain");
        Path storage = KernelBed.loopDevice(work, "drain", 16L << 20);
        try {
            Path slow = delayWrites(storage, "pillar-contract-drain", 3_000);
            writes = new BlockWrites(Files.createDirectories(work.resolve("drain")));
            target.ensureExport(PORT, new WantedExport(subsystem, NSID, slow, ADDRESS, true, Set.of(HOST_A)));
            connect(subsystem, HOST_A);
            Path deviceA = head(subsystem);

            AtomicLong started = new AtomicLong();
            AtomicBoolean stopped = new AtomicBoolean();
            Thread writerA = Thread.ofPlatform().start(() -> {
                for (long seq = 0; seq < 100; seq++) {
                    started.set(seq + 1);
                    if (!directWrite(deviceA, BlockWrites.block(seq, random))) {
                        break; // fenced: the host gave up
                    }
                }
                stopped.set(true);
            });
            while (started.get() < 2 && !stopped.get()) { // A's second write: in the delay for 3 s from now
                Thread.sleep(50);
            }
            assertThat(stopped.get()).as("A's first write failed").isFalse();
            Thread.sleep(1_500);

            long start = System.nanoTime();
            target.disallowHost(subsystem, HOST_A); // ControllerUnpublishVolume's DenyInitiator
            long drained = System.nanoTime() - start;
            target.allowOnlyHost(subsystem, HOST_B, Optional.empty()); // ControllerPublishVolume's exclusive allow
            byte[] mine = BlockWrites.block(7, random);
            assertThat(directWrite(storage, mine)).as("B's write").isTrue();
            Thread.sleep(5_000);
            System.out.printf("[fence] drain: disallowHost returned %d ms after it was called, A's write held 3000 ms"
                    + " by dm-delay%n", drained / 1_000_000);
            assertThat(BlockWrites.sha256(directRead(storage))).as("block 0 five seconds after B wrote it: B's data, no"
                    + " late write of A").isEqualTo(BlockWrites.sha256(mine));
            writerA.join(WRITE_DEADLINE.toMillis());
            assertThat(stopped.get()).as("A's writes failed once it was fenced").isTrue();
        } finally {
            for (String controller : controllers) {
                initiator.disconnect(controller, Duration.ofSeconds(20));
            }
            controllers.clear();
            KernelBed.wipe(tree);
            for (String name : delayed) {
                run("dmsetup", "remove", "--noudevsync", name);
            }
            delayed.clear();
            KernelBed.detach(storage);
        }
    }

    /**
     * An exclusive allow of B (ControllerPublishVolume for a single-node volume) after a deny of A that
     * never happened: A, connected and writing, loses its controller and cannot write any more.
     */
    @Test
    void anExclusiveAllowDropsAnotherHostsConnection() throws Exception {
        Nqn subsystem = Nqn.of("nqn.2024-06.io.pillar-csi:contract-fence-exclusive");
        publishToA(subsystem);
        Path deviceA = head(subsystem);
        assertThat(writes.write(deviceA, 0, BlockWrites.block(0, random), WRITE_DEADLINE)).as("A writes while published").isTrue();

        target.allowOnlyHost(subsystem, HOST_B, Optional.empty());
        long failedAfter = nanosUntilAWriteFails(deviceA);
        System.out.printf("[fence] exclusive allow: A's O_DIRECT write failed %d ms after allowOnlyHost(B) returned%n",
                failedAfter / 1_000_000);
        assertThat(target.inspect(subsystem).orElseThrow().allowedHosts()).containsExactly(HOST_B.value());
    }

    /** A device-mapper delay target over {@code device}: reads at once, writes (and flushes) held {@code millis}. */
    private Path delayWrites(Path device, String name, int millis) throws IOException {
        run("modprobe", "dm-delay");
        long sectors = Long.parseLong(runner.run(Command.of(COMMAND_DEADLINE, "blockdev", "--getsz", device.toString()))
                .stdout().strip());
        run("dmsetup", "create", "--noudevsync", name, "--table",
                "0 " + sectors + " delay " + device + " 0 0 " + device + " 0 " + millis);
        delayed.add(name);
        try (var entries = Files.list(Path.of("/sys/block"))) {
            for (Path block : entries.toList()) {
                Path dmName = block.resolve("dm/name");
                if (Files.exists(dmName) && Files.readString(dmName).strip().equals(name)) {
                    return Path.of("/dev").resolve(block.getFileName());
                }
            }
        }
        throw new AssertionError("dmsetup made no device " + name);
    }

    /** Block 0 written with O_DIRECT alone: one data write, no flush after it (dm-delay holds each). */
    private boolean directWrite(Path device, byte[] data) {
        try {
            Path source = work.resolve("direct-" + Thread.currentThread().threadId());
            Files.write(source, data);
            runner.run(Command.of(WRITE_DEADLINE, "dd", "if=" + source, "of=" + device, "bs=" + BlockWrites.BLOCK,
                    "count=1", "oflag=direct", "conv=notrunc,nocreat", "status=none"));
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Block 0 as the device holds it (O_DIRECT: no page cache of an earlier read). */
    private byte[] directRead(Path device) throws IOException {
        Path copy = work.resolve("read-back");
        run("dd", "if=" + device, "of=" + copy, "bs=" + BlockWrites.BLOCK, "count=1", "iflag=direct", "status=none");
        return Files.readAllBytes(copy);
    }

    @Test
    void aRevokedNodeWithExt4MountedCannotWriteAndTheNextNodeReadsItsData() throws Exception {
        Nqn subsystem = Nqn.of("nqn.2024-06.io.pillar-csi:contract-fence-fs");
        String a = publishToA(subsystem);
        Path deviceA = head(subsystem);
        run("mkfs.ext4", "-q", "-F", deviceA.toString());
        Path mountA = mount(deviceA, "a");
        Files.createFile(mountA.resolve("before"));
        Files.createFile(mountA.resolve("after"));
        byte[] before = BlockWrites.block(0, random);
        assertThat(writes.write(mountA.resolve("before"), 0, before, WRITE_DEADLINE)).as("A writes while published").isTrue();

        fence(subsystem);
        long failedAfter = nanosUntilAWriteFails(mountA.resolve("after"));
        System.out.printf("[fence] ext4: A's O_DIRECT write failed %d ms after disallowHost returned%n", failedAfter / 1_000_000);

        awaitGone(a);
        unmount(mountA); // the single kernel's artefact: A's dead mount must not hold the head B gets
        connect(subsystem, HOST_B);
        Path deviceB = head(subsystem);
        Path mountB = mount(deviceB, "b");
        assertThat(BlockWrites.sha256(Files.readAllBytes(mountB.resolve("before"))))
                .as("what A wrote before the fence, read by B").isEqualTo(BlockWrites.sha256(before));
        byte[] mine = BlockWrites.block(1, random);
        Files.createFile(mountB.resolve("by-b"));
        assertThat(writes.write(mountB.resolve("by-b"), 0, mine, WRITE_DEADLINE)).as("B writes").isTrue();
        unmount(mountB);
        mountB = mount(deviceB, "b");
        assertThat(BlockWrites.sha256(Files.readAllBytes(mountB.resolve("by-b")))).as("B's data after a remount")
                .isEqualTo(BlockWrites.sha256(mine));
    }

    @Test
    void aRevokedNodeOnTheBlockDeviceCannotWriteAndTheNextNodeReadsItsData() throws Exception {
        Nqn subsystem = Nqn.of("nqn.2024-06.io.pillar-csi:contract-fence-block");
        String a = publishToA(subsystem);
        Path deviceA = head(subsystem);
        byte[] first = BlockWrites.block(0, random);
        assertThat(writes.write(deviceA, 0, first, WRITE_DEADLINE)).as("A writes while published").isTrue();

        // the old disallow, or one that crashed before the re-link: the allowed_hosts link alone
        tree.unlink(KernelBed.CONFIGFS.resolve("nvmet/subsystems").resolve(subsystem.value())
                .resolve("allowed_hosts").resolve(HOST_A.value()));
        Thread.sleep(1_500);
        byte[] second = BlockWrites.block(1, random);
        assertThat(writes.write(deviceA, 1, second, WRITE_DEADLINE))
                .as("the kernel lets A write with only its allowed_hosts link gone: that is no fence").isTrue();

        fence(subsystem); // the retried disallow still re-links
        long failedAfter = nanosUntilAWriteFails(deviceA);
        System.out.printf("[fence] block: A's O_DIRECT write failed %d ms after disallowHost returned%n", failedAfter / 1_000_000);

        awaitGone(a);
        connect(subsystem, HOST_B);
        Path deviceB = head(subsystem);
        assertThat(BlockWrites.sha256(BlockWrites.read(deviceB, 0))).as("A's first block").isEqualTo(BlockWrites.sha256(first));
        assertThat(BlockWrites.sha256(BlockWrites.read(deviceB, 1))).as("A's second block").isEqualTo(BlockWrites.sha256(second));
        byte[] mine = BlockWrites.block(2, random);
        assertThat(writes.write(deviceB, 2, mine, WRITE_DEADLINE)).as("B writes").isTrue();
        assertThat(BlockWrites.sha256(BlockWrites.read(deviceB, 2))).as("B's block").isEqualTo(BlockWrites.sha256(mine));
    }

    /**
     * A host that stays allowed (ReadOnlyMany on several nodes; here A, while the never-connected B is
     * revoked) is dropped by the re-link too (its controller leaves "live") and reconnects by itself: no
     * write fails or is lost, and the pause is printed.
     */
    @Test
    void aStillAllowedHostReconnectsAndLosesNoWrite() throws Exception {
        writes = new BlockWrites(Files.createDirectories(work.resolve("pause")));
        Nqn subsystem = Nqn.of("nqn.2024-06.io.pillar-csi:contract-fence-pause");
        export(subsystem, HOST_A, HOST_B);
        String controller = connect(subsystem, HOST_A);
        Path device = head(subsystem);

        List<String> written = new ArrayList<>();
        List<long[]> spans = new ArrayList<>(); // start, end of each write
        AtomicBoolean stop = new AtomicBoolean();
        boolean[] failed = {false};
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (long seq = 0; !stop.get() && seq < 10_000; seq++) {
                    byte[] data = BlockWrites.block(seq, new Random(seq));
                    long start = System.nanoTime();
                    if (!writes.write(device, seq, data, WRITE_DEADLINE)) {
                        failed[0] = true;
                        return;
                    }
                    synchronized (spans) {
                        spans.add(new long[] {start, System.nanoTime()});
                        written.add(BlockWrites.sha256(data));
                    }
                }
            } catch (IOException e) {
                failed[0] = true;
            }
        });
        Set<String> states = ConcurrentHashMap.newKeySet();
        Thread watcher = Thread.ofPlatform().daemon().start(() -> {
            while (!stop.get()) {
                initiator.stateOf(controller).ifPresent(state -> states.add(state[0]));
                LockSupport.parkNanos(20_000_000);
            }
        });
        Thread.sleep(2_000);
        long relinked = fenceOnly(subsystem, HOST_B);
        Thread.sleep(6_000);
        stop.set(true);
        writer.join(WRITE_DEADLINE.toMillis());
        watcher.join(WRITE_DEADLINE.toMillis());

        assertThat(failed[0]).as("a write of the still-allowed host failed").isFalse();
        assertThat(states).as("the host's controller states: dropped by the re-link, then live again")
                .contains("live").anyMatch(state -> !state.equals("live"));
        assertThat(initiator.stateOf(controller).map(state -> state[0])).contains("live");
        long resumed;
        long longest;
        synchronized (spans) {
            resumed = spans.stream().filter(s -> s[1] > relinked).mapToLong(s -> s[1] - relinked).min().orElseThrow();
            longest = spans.stream().mapToLong(s -> s[1] - s[0]).max().orElseThrow();
            for (int i = 0; i < written.size(); i++) {
                assertThat(BlockWrites.sha256(BlockWrites.read(device, i))).as("block %d", i).isEqualTo(written.get(i));
            }
        }
        assertThat(spans.stream().filter(s -> s[0] > relinked).count()).as("writes begun after the re-link").isPositive();
        System.out.printf("[fence] still-allowed host (%s): first write done %d ms after the re-link, longest write %d ms,"
                + " %d writes, none lost%n", HOST_OPTIONS, resumed / 1_000_000, longest / 1_000_000, written.size());
    }

    /** Exported to A only, and A connected: its controller. */
    private String publishToA(Nqn subsystem) throws IOException {
        writes = new BlockWrites(Files.createDirectories(work.resolve(subsystem.value().replace(':', '-'))));
        export(subsystem, HOST_A);
        return connect(subsystem, HOST_A);
    }

    private Path head(Nqn subsystem) throws IOException, InterruptedException {
        return initiator.awaitHead(subsystem, NSID, Duration.ofSeconds(30));
    }

    private void export(Nqn subsystem, Nqn... hosts) {
        target.ensureExport(PORT, new WantedExport(subsystem, NSID, loop, ADDRESS, true, Set.of(hosts)));
    }

    private String connect(Nqn subsystem, Nqn host) throws IOException {
        String name = initiator.connect(ADDRESS, subsystem, host, HOST_OPTIONS).name();
        controllers.add(name);
        return name;
    }

    /** Unpublish from A, publish to B. */
    private void fence(Nqn subsystem) {
        fenceOnly(subsystem, HOST_A);
        target.allowHost(subsystem, HOST_B);
    }

    private long fenceOnly(Nqn subsystem, Nqn host) {
        target.disallowHost(subsystem, host);
        return System.nanoTime();
    }

    /** A's writes, again and again, until one fails: how long after now; fails the test past the bound. */
    private long nanosUntilAWriteFails(Path target) throws IOException {
        long start = System.nanoTime();
        for (long seq = 100; System.nanoTime() - start < FENCED_WITHIN.toNanos(); seq++) {
            if (!writes.write(target, seq, BlockWrites.block(seq, random), FENCED_WITHIN)) {
                long failed = System.nanoTime() - start;
                assertThat(failed).as("A's write failed (not hung) within %s", FENCED_WITHIN)
                        .isLessThan(FENCED_WITHIN.toNanos());
                return failed;
            }
        }
        throw new AssertionError("the revoked node A could still write " + FENCED_WITHIN + " after disallowHost");
    }

    private void awaitGone(String controller) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (initiator.stateOf(controller).isPresent()) {
            assertThat(System.nanoTime()).as("A's host gives up its controller %s (ctrl_loss_tmo)", controller)
                    .isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private Path mount(Path device, String name) throws IOException {
        Path point = Files.createDirectories(work.resolve("mnt-" + name));
        run("mount", "-t", "ext4", device.toString(), point.toString());
        mounts.add(point);
        return point;
    }

    private void unmount(Path point) {
        run("umount", "--lazy", point.toString());
        mounts.remove(point);
    }

    private void run(String... argv) {
        runner.run(Command.of(COMMAND_DEADLINE, argv));
    }
}
