package pillar.bench.vm;

import static pillar.bench.vm.VmBench.GROWN;
import static pillar.bench.vm.VmBench.SIZE;
import static pillar.bench.vm.VmBench.directory;
import static pillar.bench.vm.VmBench.timed;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.NodeExpandVolumeRequest;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.server.Channels;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;
import pillar.node.fs.FsType;
import pillar.node.fs.MkfsOptions;
import pillar.node.mount.MountOptions;
import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsTarget;
import pillar.node.nvme.SysfsNvme;

/**
 * One repetition: a volume through every phase by pillar-csi and another by the bare commands,
 * phase after phase in turn; then a third volume through the node's whole CSI calls.
 */
final class Repetition {
    private static final VolumeCapability EXT4 = VolumeCapability.newBuilder()
            .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
            .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
            .build();

    private final Pillar pillar;
    private final Bare bare;
    private final Phases phases;
    private final Path work;
    private final int index;
    private final boolean wholeCalls;
    private final Map<String, Long> pt = VmBench.times();
    private final Map<String, Long> bt = VmBench.times();

    /** {@code wholeCalls}: also the node's whole CSI calls on a third volume. */
    Repetition(Pillar pillar, Bare bare, Phases phases, Path work, int index, boolean wholeCalls) {
        this.wholeCalls = wholeCalls;
        this.pillar = pillar;
        this.bare = bare;
        this.phases = phases;
        this.work = work;
        this.index = index;
    }

    void run() throws InterruptedException {
        String p = "vmb-p" + index;
        String b = "vmb-b" + index;
        String nqnB = "nqn.2024-06.io.pillar-bench:" + b;
        LifecycleUid life = LifecycleUid.random();
        SysfsNvme sysfs = pillar.node.sysfs();

        timed(pt, "create", () -> pillar.create(p, life, SIZE));
        timed(bt, "create", () -> step(() -> bare.create(b, SIZE)));
        String nqnP = timed(pt, "export", () -> pillar.export(p, life));
        timed(bt, "export", () -> step(() -> bare.export(nqnB, bare.device(b))));
        timed(pt, "publish", () -> step(() -> pillar.allow(p, life)));
        timed(bt, "publish", () -> step(() -> bare.publish(nqnB)));

        FabricsTarget target = FabricsTarget.fromPublishContext(Pillar.context(nqnP));
        Connected connectedP = timed(pt, "connect", () -> {
            Controller c = pillar.node.initiator().connect(target);
            return new Connected(c, await(sysfs, nqnP));
        });
        Controller controller = connectedP.controller();
        Path devP = connectedP.device();
        String[] connected = timed(bt, "connect", () -> bare.connect(nqnB));
        Path devB = Path.of(connected[1]);

        timed(pt, "mkfs", () -> step(() -> {
            if (!pillar.node.filesystems().probe(devP).blank()) {
                throw new IllegalStateException(devP + " is not blank");
            }
            pillar.node.filesystems().format(devP, FsType.EXT4, MkfsOptions.NONE);
        }));
        timed(bt, "mkfs", () -> step(() -> bare.mkfs(devB)));
        Path mntP = directory(work.resolve("mnt/" + p));
        Path mntB = directory(work.resolve("mnt/" + b));
        timed(pt, "mount", () -> step(() -> pillar.node.mounter().mount(devP, mntP, FsType.EXT4,
                MountOptions.parse(List.of(), FsType.EXT4))));
        timed(bt, "mount", () -> step(() -> bare.mount(devB, mntB)));

        timed(pt, "expand", () -> step(() -> pillar.expand(p, life, GROWN)));
        timed(bt, "expand", () -> step(() -> bare.growTarget(b, nqnB, GROWN)));
        timed(bt, "NodeExpandVolume", () -> step(() -> {
            Bare.script("echo 1 > /sys/class/nvme/nvme$1/rescan_controller", connected[0]);
            awaitSize(sysfs, devB);
            bare.resize(devB);
        }));

        timed(pt, "unmount", () -> step(() -> pillar.node.mounter().unmount(mntP)));
        timed(bt, "unmount", () -> step(() -> bare.umount(mntB)));
        timed(pt, "disconnect", () -> step(() -> pillar.node.initiator().disconnect(controller)));
        timed(bt, "disconnect", () -> step(() -> bare.disconnect(connected[0])));
        timed(pt, "unexport", () -> step(() -> pillar.unexport(p, life)));
        timed(bt, "unexport", () -> step(() -> bare.unexport(nqnB)));
        timed(pt, "delete", () -> step(() -> pillar.delete(p, life)));
        timed(bt, "delete", () -> step(() -> bare.delete(b)));

        if (wholeCalls) {
            wholeCalls();
            phases.bare("NodeStageVolume", bt.get("connect") + bt.get("mkfs") + bt.get("mount"));
            phases.bare("NodeUnstageVolume", bt.get("unmount") + bt.get("disconnect"));
        } else {
            bt.remove("NodeExpandVolume");
        }
        pt.forEach(phases::pillar);
        bt.forEach(phases::bare);
    }

    private record Connected(Controller controller, Path device) {
    }

    /** What NodeStageVolume does after connecting: waits for the namespace's head device. */
    private static Path await(SysfsNvme sysfs, String nqn) {
        try {
            return sysfs.awaitHead(Nqn.of(nqn), Pillar.patience()).orElseThrow(() -> new IllegalStateException("no device for " + nqn));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** NodeStageVolume, NodeExpandVolume, NodeUnstageVolume over the node's CSI socket, on a third volume. */
    private void wholeCalls() {
        String s = "vmb-s" + index;
        LifecycleUid life = LifecycleUid.random();
        pillar.create(s, life, SIZE);
        String nqn = pillar.export(s, life);
        pillar.allow(s, life);
        Path staging = directory(work.resolve("kubelet/plugins/kubernetes.io/csi/pillar.csi.io").resolve(s)).resolve("globalmount");
        ManagedChannel channel = Channels.unix(pillar.socket);
        try {
            NodeGrpc.NodeBlockingStub node = NodeGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.MINUTES);
            timed(pt, "NodeStageVolume", () -> node.nodeStageVolume(NodeStageVolumeRequest.newBuilder().setVolumeId(s)
                    .setStagingTargetPath(staging.toString()).setVolumeCapability(EXT4).putAllPublishContext(Pillar.context(nqn))
                    .build()));
            pillar.expand(s, life, GROWN);
            timed(pt, "NodeExpandVolume", () -> node.nodeExpandVolume(NodeExpandVolumeRequest.newBuilder().setVolumeId(s)
                    .setVolumePath(staging.toString()).setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(GROWN)).build()));
            timed(pt, "NodeUnstageVolume", () -> node.nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder().setVolumeId(s)
                    .setStagingTargetPath(staging.toString()).build()));
        } finally {
            channel.shutdownNow();
        }
        pillar.unexport(s, life);
        pillar.delete(s, life);
    }

    private static void awaitSize(SysfsNvme sysfs, Path device) {
        long deadline = System.nanoTime() + Pillar.patience().toNanos();
        while (sysfs.sizeBytes(device) < GROWN) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(device + " never showed " + GROWN + " bytes");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static Void step(Runnable action) {
        action.run();
        return null;
    }
}
