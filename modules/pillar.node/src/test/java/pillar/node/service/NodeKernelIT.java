package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.context.PublishContext;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.csi.v1.VolumeUsage;
import pillar.api.value.Nqn;
import pillar.node.mount.HostLoops;
import pillar.node.mount.MountInfo;
import pillar.node.nvme.NvmetExport;
import pillar.node.nvme.SysfsNvme;

/**
 * pillar-node against a real nvmet export on the VM's kernel, every adapter real: NodeStage
 * connects through /dev/nvme-fabrics and finds the head namespace, formats and mounts; publish,
 * write and checksum, online growth after the target revalidates the size, stats, unpublish,
 * unstage (the controller is deleted); for ext4, xfs and Block. A node killed with SIGKILL in the
 * middle of NodeStage is restarted and the retried call converges: one controller, one mkfs, one
 * mount. Prints each call's time next to the bare commands'.
 *
 * <p>Runs only inside the qemu VM ({@code dev/kernel-it}); anywhere else it fails on purpose.
 */
class NodeKernelIT {
    private static final long MIB = 1L << 20;
    private static final int PORT_ID = 7;
    private static final int TRSVCID = 4427;

    @TempDir
    Path work;
    KernelNode kernel;
    final List<AutoCloseable> cleanups = new ArrayList<>();
    final List<String> timings = new ArrayList<>();

    @BeforeAll
    static void onlyInTheKernelVm() {
        NvmetExport.requireKernel();
    }

    @BeforeEach
    void start() {
        kernel = new KernelNode(work);
    }

    @AfterEach
    void cleanUp() throws Exception {
        timings.forEach(t -> System.out.println("[kernel-it] [timing] " + t));
        List<String> problems = new ArrayList<>();
        for (int i = cleanups.size() - 1; i >= 0; i--) {
            try {
                cleanups.get(i).close();
            } catch (Exception | AssertionError e) {
                problems.add(e.toString());
            }
        }
        problems.forEach(p -> System.out.println("[kernel-it] CLEANUP FAILED: " + p));
        assertThat(problems).as("cleanup").isEmpty();
    }

    /** A loop device exported as a subsystem; cleanup disconnects, unmounts, unexports and detaches whatever is left. */
    private Map<String, String> export(String volume, long bytes, boolean enabled, Path[] loopOut, NvmetExport[] exportOut)
            throws Exception {
        Path loop = kernel.loop(volume, bytes);
        Nqn nqn = Nqn.of("nqn.2024-01.io.pillar-csi:kit-" + volume);
        cleanups.add(() -> KernelNode.run("losetup", "--detach", loop.toString()));
        NvmetExport export = new NvmetExport(nqn, loop, kernel.host, PORT_ID, TRSVCID, enabled);
        cleanups.add(export);
        cleanups.add(() -> {
            List<String> problems = new ArrayList<>();
            HostLoops.unmountAllBelow(work, problems);
            for (SysfsNvme.ControllerInfo c : new SysfsNvme(KernelNode.SYS, KernelNode.DEV).controllers()) {
                if (c.subsysnqn().equals(nqn.value())) {
                    problems.add("controller " + c.controller() + " was left connected");
                    Files.writeString(KernelNode.SYS.resolve("class/nvme").resolve(c.controller().name())
                            .resolve("delete_controller"), "1", StandardOpenOption.WRITE);
                }
            }
            assertThat(problems).isEmpty();
        });
        loopOut[0] = loop;
        exportOut[0] = export;
        return Map.of(PublishContext.NQN, nqn.value(), PublishContext.TRANSPORT, "tcp", PublishContext.TRADDR,
                "127.0.0.1", PublishContext.TRSVCID, String.valueOf(TRSVCID), PublishContext.CTRL_LOSS_TMO, "30",
                PublishContext.RECONNECT_DELAY, "2");
    }

    private <T> T timed(String call, Supplier<T> action) {
        long started = System.nanoTime();
        T result = action.get();
        timings.add(String.format("%-34s %7d ms", call, (System.nanoTime() - started) / 1_000_000));
        return result;
    }

    private void timed(String call, Runnable action) {
        timed(call, () -> {
            action.run();
            return null;
        });
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }

    private static long total(pillar.api.csi.v1.NodeGetVolumeStatsResponse stats) {
        return stats.getUsageList().stream().filter(u -> u.getUnit() == VolumeUsage.Unit.BYTES).findFirst()
                .orElseThrow().getTotal();
    }

    private static long controllersOf(Map<String, String> context) {
        return new SysfsNvme(KernelNode.SYS, KernelNode.DEV).controllers().stream()
                .filter(c -> c.subsysnqn().equals(context.get(PublishContext.NQN))).count();
    }

    private static int mountsAt(Path path) throws Exception {
        return MountInfo.parse(Files.readString(Path.of("/proc/self/mountinfo"))).countAt(path);
    }

    private void filesystemLifecycle(String fsType, long size, long grown) throws Exception {
        String volume = "pvc-" + fsType;
        Path[] loop = new Path[1];
        NvmetExport[] export = new NvmetExport[1];
        Map<String, String> context = export(volume, size, true, loop, export);
        KernelNode.Served served = kernel.serve("node-" + fsType);
        cleanups.add(served);
        VolumeCapability cap = Csi.fs(fsType, Mode.SINGLE_NODE_MULTI_WRITER, "noatime");
        Path staging = Files.createDirectories(kernel.kubelet.resolve("plugins/pillar.csi.io/" + volume)).resolve("globalmount");
        Path rw = Files.createDirectories(kernel.kubelet.resolve("pods/a/" + volume)).resolve("mount");
        Path ro = Files.createDirectories(kernel.kubelet.resolve("pods/b/" + volume)).resolve("mount");
        var stage = Csi.stage(volume, staging, cap, context, Map.of());

        timed(fsType + " NodeStageVolume (blank)", () -> served.node().nodeStageVolume(stage));
        timed(fsType + " NodeStageVolume (repeat)", () -> served.node().nodeStageVolume(stage));
        assertThat(controllersOf(context)).isEqualTo(1);
        assertThat(kernel.tools.count("mkfs." + fsType)).isEqualTo(1);
        timed(fsType + " NodePublishVolume", () -> served.node().nodePublishVolume(Csi.publish(volume, staging, rw, cap, false)));
        served.node().nodePublishVolume(Csi.publish(volume, staging, ro, cap, true));

        byte[] data = new byte[(int) (4 * MIB)];
        new Random(7).nextBytes(data);
        try (FileChannel file = FileChannel.open(rw.resolve("data.bin"), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE)) {
            file.write(ByteBuffer.wrap(data));
            file.force(true);
        }
        String written = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        assertThat(sha256(ro.resolve("data.bin"))).isEqualTo(written);

        var stats = timed(fsType + " NodeGetVolumeStats", () -> served.node().nodeGetVolumeStats(Csi.stats(volume, rw)));
        assertThat(stats.getVolumeCondition().getAbnormal()).isFalse();
        long before = total(stats);
        kernel.grow(loop[0], volume, grown);
        export[0].revalidateSize();
        long capacity = timed(fsType + " NodeExpandVolume", () -> served.node()
                .nodeExpandVolume(Csi.expand(volume, rw, grown)).getCapacityBytes());
        assertThat(capacity).isEqualTo(grown);
        assertThat(total(served.node().nodeGetVolumeStats(Csi.stats(volume, rw)))).isGreaterThan(before + (grown - size) / 2);
        assertThat(sha256(rw.resolve("data.bin"))).isEqualTo(written);

        timed(fsType + " NodeUnpublishVolume", () -> served.node().nodeUnpublishVolume(Csi.unpublish(volume, rw)));
        served.node().nodeUnpublishVolume(Csi.unpublish(volume, ro));
        served.node().nodeUnpublishVolume(Csi.unpublish(volume, ro));
        timed(fsType + " NodeUnstageVolume", () -> served.node().nodeUnstageVolume(Csi.unstage(volume, staging)));
        served.node().nodeUnstageVolume(Csi.unstage(volume, staging));
        assertThat(controllersOf(context)).as("the controller is deleted on unstage").isZero();
        assertThat(mountsAt(staging)).isZero();

        // staged again: the filesystem is found, not made again, and the data is there
        served.node().nodeStageVolume(stage);
        assertThat(kernel.tools.count("mkfs." + fsType)).isEqualTo(1);
        assertThat(sha256(staging.resolve("data.bin"))).isEqualTo(written);
        served.node().nodeUnstageVolume(Csi.unstage(volume, staging));
        assertThat(controllersOf(context)).isZero();
        bareCommands(fsType, volume, loop[0], export[0], context, grown + 64 * MIB);
    }

    /** The same work by hand on the same export, for the timing table. */
    private void bareCommands(String fsType, String volume, Path loop, NvmetExport export, Map<String, String> context,
                              long grownAgain) throws Exception {
        pillar.node.nvme.FabricsInitiator bare = new pillar.node.nvme.FabricsInitiator(KernelNode.DEV.resolve("nvme-fabrics"),
                new SysfsNvme(KernelNode.SYS, KernelNode.DEV), kernel.host);
        var target = pillar.node.nvme.FabricsTarget.fromPublishContext(context);
        var controller = timed("  bare: write /dev/nvme-fabrics", () -> bare.connect(target));
        Path device = timed("  bare: wait for the head device", () -> {
            try {
                return new SysfsNvme(KernelNode.SYS, KernelNode.DEV).awaitHead(target.nqn(), Duration.ofSeconds(60))
                        .orElseThrow();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Path a = Files.createDirectories(work.resolve("bare/a"));
        Path b = Files.createDirectories(work.resolve("bare/b"));
        timed("  bare: blkid -p", () -> KernelNode.run("blkid", "-p", device.toString()));
        timed("  bare: mount", () -> KernelNode.run("mount", "-t", fsType, device.toString(), a.toString()));
        timed("  bare: mount --bind", () -> KernelNode.run("mount", "--bind", a.toString(), b.toString()));
        timed("  bare: stat -f", () -> KernelNode.run("stat", "-f", b.toString()));
        kernel.grow(loop, volume, grownAgain);
        export.revalidateSize();
        SysfsNvme sysfs = new SysfsNvme(KernelNode.SYS, KernelNode.DEV);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (sysfs.sizeBytes(device) < grownAgain && System.nanoTime() - deadline < 0) {
            Thread.sleep(50); // the initiator learns the new size from the target's notice
        }
        timings.add("  (the host saw the new size without a rescan: " + (sysfs.sizeBytes(device) >= grownAgain) + ")");
        timed("  bare: " + (fsType.equals("xfs") ? "xfs_growfs -d" : "resize2fs"), () -> fsType.equals("xfs")
                ? KernelNode.run("xfs_growfs", "-d", a.toString()) : KernelNode.run("resize2fs", device.toString()));
        timed("  bare: umount (bind)", () -> KernelNode.run("umount", b.toString()));
        timed("  bare: umount", () -> KernelNode.run("umount", a.toString()));
        timed("  bare: delete_controller", () -> bare.disconnect(controller));
        kernel.tools.ran().forEach(r -> timings.add(String.format("  inside the calls: %-40s %7d ms",
                r.command().program() + " " + r.command().argv().get(1), r.millis())));
    }

    @Test
    void ext4() throws Exception {
        filesystemLifecycle("ext4", 256 * MIB, 512 * MIB);
    }

    @Test
    void xfs() throws Exception {
        filesystemLifecycle("xfs", 320 * MIB, 640 * MIB);
    }

    @Test
    void block() throws Exception {
        String volume = "pvc-block";
        Path[] loop = new Path[1];
        NvmetExport[] export = new NvmetExport[1];
        Map<String, String> context = export(volume, 64 * MIB, true, loop, export);
        KernelNode.Served served = kernel.serve("node-block");
        cleanups.add(served);
        VolumeCapability cap = Csi.block(Mode.SINGLE_NODE_WRITER);
        Path staging = Files.createDirectories(kernel.kubelet.resolve("plugins/volumeDevices/staging/" + volume));
        Path target = Files.createDirectories(kernel.kubelet.resolve("plugins/volumeDevices/publish/" + volume)).resolve("pod-a");
        timed("block NodeStageVolume", () -> served.node().nodeStageVolume(Csi.stage(volume, staging, cap, context, Map.of())));
        timed("block NodePublishVolume", () -> served.node().nodePublishVolume(Csi.publish(volume, staging, target, cap, false)));

        byte[] data = new byte[(int) MIB];
        new Random(11).nextBytes(data);
        try (FileChannel device = FileChannel.open(target, StandardOpenOption.WRITE)) {
            device.write(ByteBuffer.wrap(data), 8 * MIB);
            device.force(true);
        }
        ByteBuffer back = ByteBuffer.allocate(data.length);
        try (FileChannel backing = FileChannel.open(loop[0], StandardOpenOption.READ)) {
            backing.read(back, 8 * MIB);
        }
        assertThat(back.array()).as("the bytes written through the published device reach the target's backing").isEqualTo(data);

        assertThat(total(timed("block NodeGetVolumeStats", () -> served.node().nodeGetVolumeStats(Csi.stats(volume, target)))))
                .isEqualTo(64 * MIB);
        kernel.grow(loop[0], volume, 128 * MIB);
        export[0].revalidateSize();
        assertThat(timed("block NodeExpandVolume", () -> served.node().nodeExpandVolume(Csi.expand(volume, target, 128 * MIB)))
                .getCapacityBytes()).isEqualTo(128 * MIB);
        assertThat(total(served.node().nodeGetVolumeStats(Csi.stats(volume, target)))).isEqualTo(128 * MIB);
        timed("block NodeUnpublishVolume", () -> served.node().nodeUnpublishVolume(Csi.unpublish(volume, target)));
        timed("block NodeUnstageVolume", () -> served.node().nodeUnstageVolume(Csi.unstage(volume, staging)));
        assertThat(target).doesNotExist();
        assertThat(controllersOf(context)).isZero();
    }

    @Test
    void aNodeKilledInTheMiddleOfNodeStageConvergesOnTheRetry() throws Exception {
        String volume = "pvc-kill";
        Path[] loop = new Path[1];
        NvmetExport[] export = new NvmetExport[1];
        // the namespace is disabled: the connect succeeds, the block device does not come, NodeStage waits
        Map<String, String> context = export(volume, 128 * MIB, false, loop, export);
        Path staging = Files.createDirectories(kernel.kubelet.resolve("plugins/pillar.csi.io/" + volume)).resolve("globalmount");
        var stage = Csi.stage(volume, staging, Csi.ext4(), context, Map.of());
        Path record = kernel.state.resolve(volume + ".stage");

        KernelNode.Served first = kernel.startProcess("node-1", Duration.ofMinutes(5));
        cleanups.add(first);
        CompletableFuture<Void> inFlight = CompletableFuture.runAsync(() -> first.node().nodeStageVolume(stage));
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!(Files.exists(record) && Files.readString(record).matches("(?s).*\ncontroller=nvme[0-9]+\n.*"))) {
            assertThat(System.nanoTime() - deadline).as("NodeStage connected and recorded its controller").isNegative();
            assertThat(inFlight).as("NodeStage is still running").isNotDone();
            Thread.sleep(100);
        }
        first.kill();
        System.out.println("[kernel-it] killed the node during NodeStage; record: " + Files.readString(record).replace('\n', ' '));
        assertThat(Files.readString(record)).contains("phase=attaching");
        assertThat(controllersOf(context)).isEqualTo(1);
        assertThat(mountsAt(staging)).isZero();

        export[0].enable();
        // the retry and the restart after it are served in this JVM: a third JVM start in the VM (half a
        // minute of TCG) would prove nothing the first kill did not; closing a node leaves the kernel as a
        // SIGKILL does, since a finished NodeStage holds no state in the process
        String uuid;
        try (KernelNode.Served second = kernel.serve("node-2")) { // closed, the kernel keeps its mount and controller
            timed("NodeStageVolume retried after kill -9", () -> second.node().nodeStageVolume(stage));
            assertThat(controllersOf(context)).as("the retry reused the controller").isEqualTo(1);
            assertThat(mountsAt(staging)).isEqualTo(1);
            assertThat(Files.readString(record)).contains("phase=staged");
            uuid = KernelNode.run("blkid", "-p", "-s", "UUID", "-o", "value", loop[0].toString()).strip();
            Files.writeString(staging.resolve("kept"), "through a restart");
        }

        KernelNode.Served third = kernel.serve("node-3"); // the restarted node
        cleanups.add(third);
        third.node().nodeStageVolume(stage);
        assertThat(KernelNode.run("blkid", "-p", "-s", "UUID", "-o", "value", loop[0].toString()).strip())
                .as("no second mkfs").isEqualTo(uuid);
        assertThat(mountsAt(staging)).as("no second mount").isEqualTo(1);
        assertThat(controllersOf(context)).as("no second controller").isEqualTo(1);
        assertThat(Files.readString(staging.resolve("kept"))).isEqualTo("through a restart");
        third.node().nodeUnstageVolume(Csi.unstage(volume, staging));
        assertThat(controllersOf(context)).isZero();
        assertThat(mountsAt(staging)).isZero();
    }
}
