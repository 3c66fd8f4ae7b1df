package pillar.sandbox;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import pillar.api.context.PublishContext;
import pillar.api.csi.v1.ControllerExpandVolumeResponse;
import pillar.api.csi.v1.NodeGetVolumeStatsResponse;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.csi.v1.VolumeUsage;

/**
 * One ReadWriteMany volume over NFS, shared by two nodes as Kubernetes drives it: external-provisioner
 * creates it, external-attacher publishes it to both nodes (the controller admits each by its Node's
 * InternalIP), each node's kubelet stages it once and publishes it to a pod; each pod reads what the
 * other wrote and fsynced; external-resizer grows it (the dataset's refquota) and both see the new size
 * without a node step; then the second node is unpublished while it still has the volume mounted (as
 * a lost node is) and is cut off on the wire while the first writes on; the server's whole export table
 * is wiped behind the agent (as another program's {@code exportfs -ra} does) and the controller's poll
 * has the agent re-apply the first node's export, never the second's; everything is undone and nothing
 * is left. Each step is printed with its time and the kernel objects it changed (the dataset, its NFS
 * export and clients, the nodes' mounts, nfsd's clients). The first failing step ends the run; what was
 * set up is undone best-effort.
 */
final class NfsScenario {
    private static final long MIB = 1 << 20;
    private static final String FS_TYPE = "nfs4";
    /** How long the controller's poll may take to find and repair a wiped export (the sandbox polls every 5 s). */
    private static final java.time.Duration REPAIR_DEADLINE = java.time.Duration.ofSeconds(90);
    /**
     * How long a fenced node's write is given: it fails at once (EACCES) when the server refuses it, or
     * blocks while the node's NFSv4 client, whose state nfsd expired, retries its lease and is refused.
     */
    private static final java.time.Duration CUT_WAIT = java.time.Duration.ofSeconds(10);

    /** One node's part: its publish context and its paths for the volume. */
    private static final class OnNode {
        final NfsNode node;
        final String label;
        Map<String, String> context;
        Path staging;
        Path target;

        OnNode(NfsNode node, String label) {
            this.node = node;
            this.label = label;
        }
    }

    private final CsiController controller;
    private final NfsdBed nfsd;
    private final List<NfsNode> nodes;
    private final List<Path> kubeletDirs;
    private final Steps steps;

    /**
     * Plays on the first two of {@code nodes}, served by {@code nfsd}; {@code kubeletDirs} are every
     * node's, for the snapshots.
     */
    NfsScenario(CsiController controller, NfsdBed nfsd, List<NfsNode> nodes, List<Path> kubeletDirs, PrintStream out) {
        if (nodes.size() < 2) {
            throw new IllegalArgumentException("the NFS scenario needs two NFS nodes, has " + nodes.size());
        }
        this.controller = controller;
        this.nfsd = nfsd;
        this.nodes = List.copyOf(nodes.subList(0, 2));
        this.kubeletDirs = List.copyOf(kubeletDirs);
        this.steps = new Steps(out, this.kubeletDirs, 21);
    }

    /** Runs it with the class's {@code parameters}: a claim of {@code bytes}, grown to {@code grownBytes}. */
    Steps.Result run(String label, Map<String, String> parameters, long bytes, long grownBytes) {
        String pvName = "pvc-" + UUID.randomUUID();
        VolumeCapability rwx = VolumeCapability.newBuilder().setMount(VolumeCapability.MountVolume.newBuilder().setFsType(FS_TYPE))
                .setAccessMode(VolumeCapability.AccessMode.newBuilder().setMode(Mode.MULTI_NODE_MULTI_WRITER)).build();
        OnNode a = new OnNode(nodes.get(0), "node a");
        OnNode b = new OnNode(nodes.get(1), "node b");
        KernelObjects atStart = KernelObjects.read(kubeletDirs);
        Volume[] created = new Volume[1];
        try {
            steps.step("CreateVolume (ReadWriteMany)", () -> {
                created[0] = controller.create(pvName, bytes, rwx, Lifecycle.provisionerParameters(parameters, pvName));
                Lifecycle.check(created[0].getCapacityBytes() >= bytes, "capacity " + created[0].getCapacityBytes());
                return created[0].getVolumeId() + ", " + created[0].getCapacityBytes() / MIB + " MiB, volume_context "
                        + created[0].getVolumeContextMap();
            });
            Volume volume = created[0];
            String id = volume.getVolumeId();
            for (OnNode n : List.of(a, b)) {
                steps.step("ControllerPublishVolume, " + n.label, () -> {
                    n.context = controller.publish(volume, n.node.nodeId(), rwx, false);
                    Lifecycle.check(PublishContext.PROTOCOL_NFS.equals(n.context.get(PublishContext.PROTOCOL)),
                            "not an NFS publish context: " + n.context);
                    Lifecycle.check(n.node.net().clientAddress().equals(n.context.get(PublishContext.NFS_CLIENT_ADDRESS)),
                            "the client address is not the Node's InternalIP " + n.node.net().clientAddress());
                    Lifecycle.check(exported(n), "the NFS server exports nothing to " + n.node.net().clientAddress());
                    return n.node.name() + " -> publish_context " + n.context;
                });
            }
            String path = a.context.get(PublishContext.NFS_EXPORT);
            for (OnNode n : List.of(a, b)) {
                steps.step("NodeStageVolume, " + n.label, () -> {
                    n.staging = n.node.csi().stagingPath(id, pvName, false);
                    n.node.csi().stage(volume, n.context, n.staging, rwx);
                    String mount = mountAt(n.staging);
                    Lifecycle.check(mount.startsWith("nfs4 "), "nothing mounted over NFSv4 at " + n.staging + ": " + mount);
                    return "staging_target_path " + n.staging;
                });
            }
            for (OnNode n : List.of(a, b)) {
                steps.step("NodePublishVolume, " + n.label, () -> {
                    n.target = n.node.csi().targetPath(UUID.randomUUID().toString(), pvName, false);
                    n.node.csi().publish(volume, n.context, n.staging, n.target, rwx, false);
                    Lifecycle.check(!mountAt(n.target).isEmpty(), "nothing mounted at " + n.target);
                    return "target_path " + n.target;
                });
            }
            steps.step("pod on a writes 8 MiB, fsync; b reads", () -> {
                String written = BoundedIo.call("writing through node a", () -> VolumeData.write(a.target, false, bytes));
                Lifecycle.dropCaches();
                String back = BoundedIo.call("reading through node b", () -> VolumeData.read(b.target, false));
                Lifecycle.check(back.equals(written), "node b read back " + back + ", node a wrote " + written);
                return "sha256 " + written.substring(0, 16) + "… read back equal on node b";
            });
            steps.step("pod on b writes, fsync; a reads", () -> {
                BoundedIo.writeSynced(b.target.resolve("from-b"), "written on " + b.node.name());
                String back = BoundedIo.read(a.target.resolve("from-b"));
                Lifecycle.check(back.equals("written on " + b.node.name()), "node a read '" + back + "'");
                return "node a reads '" + back + "'";
            });
            long[] totalBefore = new long[1];
            steps.step("NodeGetVolumeStats, node b", () -> {
                NodeGetVolumeStatsResponse stats = b.node.csi().stats(id, b.target, b.staging);
                totalBefore[0] = Lifecycle.total(stats, VolumeUsage.Unit.BYTES);
                Lifecycle.check(!stats.getVolumeCondition().getAbnormal(), "abnormal: " + stats.getVolumeCondition().getMessage());
                return Lifecycle.describe(stats);
            });
            steps.step("ControllerExpandVolume", () -> {
                ControllerExpandVolumeResponse r = controller.expand(id, grownBytes, rwx);
                Lifecycle.check(r.getCapacityBytes() >= grownBytes, "capacity " + r.getCapacityBytes() + " after expansion");
                Lifecycle.check(!r.getNodeExpansionRequired(), "an NFS volume needs no node expansion");
                return r.getCapacityBytes() / MIB + " MiB (the dataset's refquota), node_expansion_required false";
            });
            steps.step("NodeGetVolumeStats, node a (grown)", () -> {
                NodeGetVolumeStatsResponse stats = a.node.csi().stats(id, a.target, a.staging);
                long after = Lifecycle.total(stats, VolumeUsage.Unit.BYTES);
                Lifecycle.check(after > totalBefore[0], "total bytes " + after + " did not grow from " + totalBefore[0]);
                Lifecycle.check(!stats.getVolumeCondition().getAbnormal(), "abnormal: " + stats.getVolumeCondition().getMessage());
                return Lifecycle.describe(stats);
            });
            steps.step("ControllerUnpublishVolume, node b", () -> {
                controller.unpublish(id, b.node.nodeId());
                Lifecycle.check(!exported(b), "the NFS server still exports to " + b.node.net().clientAddress());
                Lifecycle.check(exported(a), "the NFS server no longer exports to " + a.node.net().clientAddress());
                return "as for a lost node: b still has it mounted";
            });
            steps.step("b is cut off, a writes on", () -> {
                BoundedIo.writeSynced(a.target.resolve("after-b-left"), "node a writes on");
                String b1 = BoundedIo.refusedWrite(b.target.resolve("from-b-after-unpublish"), "must not land", CUT_WAIT);
                BoundedIo.writeSynced(a.target.resolve("after-b-tried"), "node a still writes");
                Lifecycle.check(BoundedIo.read(a.target.resolve("after-b-left")).equals("node a writes on"), "node a's read");
                Lifecycle.check(!java.nio.file.Files.exists(Path.of(path, "from-b-after-unpublish")),
                        "node b's write after its unpublish reached the dataset on the server");
                return "b's write " + b1 + ", and is not on the server; a writes before and after it";
            });
            steps.step("exportfs -ua behind the agent", () -> {
                nfsd.unexportAll();
                Lifecycle.check(!exported(a), "exportfs -ua left the export to " + a.node.net().clientAddress());
                long start = System.nanoTime();
                while (!exported(a)) {
                    Lifecycle.check(System.nanoTime() - start < REPAIR_DEADLINE.toNanos(), "the export to node a was not"
                            + " re-applied within " + REPAIR_DEADLINE.toSeconds() + " s");
                    Thread.sleep(250);
                }
                long seconds = (System.nanoTime() - start) / 1_000_000_000;
                Lifecycle.check(!exported(b), "the repair re-exported to node b, which is not published");
                BoundedIo.writeSynced(a.target.resolve("after-repair"), "node a writes after the repair");
                Lifecycle.check(BoundedIo.read(a.target.resolve("from-b")).equals("written on " + b.node.name()), "node a's read");
                return "every export gone; the controller's poll had node a's re-applied after " + seconds
                        + " s (not node b's); a reads and writes";
            });
            steps.step("NodeUnpublishVolume, node b", () -> unpublishOn(b, id));
            steps.step("NodeUnstageVolume, node b", () -> unstageOn(b, id));
            steps.step("NodeUnpublishVolume, node a", () -> unpublishOn(a, id));
            steps.step("NodeUnstageVolume, node a", () -> unstageOn(a, id));
            steps.step("ControllerUnpublishVolume, node a", () -> {
                controller.unpublish(id, a.node.nodeId());
                a.context = null;
                Lifecycle.check(!exported(a), "the NFS server still exports to " + a.node.net().clientAddress());
                return "";
            });
            steps.step("DeleteVolume", () -> {
                controller.delete(id);
                created[0] = null;
                List<String> left = KernelObjects.read(kubeletDirs).changesSince(atStart);
                Lifecycle.check(left.isEmpty(), "left behind: " + left);
                return "nothing left: no dataset, no export, no mount (" + path + " is gone)";
            });
        } catch (Steps.StepFailed failed) {
            undo(created[0], List.of(a, b));
        }
        return steps.result(label);
    }

    private String unpublishOn(OnNode n, String id) {
        n.node.csi().unpublish(id, n.target);
        Lifecycle.check(mountAt(n.target).isEmpty(), n.target + " still mounted");
        n.target = null;
        return "";
    }

    private String unstageOn(OnNode n, String id) {
        n.node.csi().unstage(id, n.staging);
        Lifecycle.check(mountAt(n.staging).isEmpty(), n.staging + " still mounted");
        n.staging = null;
        return "";
    }

    /** Whether the NFS server exports the volume to the node's address (from the kernel's export table). */
    private boolean exported(OnNode n) {
        String export = n.context == null ? null : n.context.get(PublishContext.NFS_EXPORT);
        return export != null && !KernelObjects.read(kubeletDirs).keysStartingWith("NFS export " + export + " to "
                + n.node.net().clientAddress()).isEmpty();
    }

    /** "TYPE SOURCE MODE" of the mount at {@code path}, or "" when nothing is mounted there. */
    private String mountAt(Path path) {
        return KernelObjects.read(kubeletDirs).objects().getOrDefault("mount " + path, "");
    }

    private void undo(Volume volume, List<OnNode> on) {
        List<Runnable> undo = new ArrayList<>();
        for (OnNode n : on) {
            if (n.target != null) {
                undo.add(() -> n.node.csi().unpublish(volume.getVolumeId(), n.target));
            }
            if (n.staging != null) {
                undo.add(() -> n.node.csi().unstage(volume.getVolumeId(), n.staging));
            }
            if (volume != null && n.context != null) {
                undo.add(() -> controller.unpublish(volume.getVolumeId(), n.node.nodeId()));
            }
        }
        if (volume != null) {
            undo.add(() -> controller.delete(volume.getVolumeId()));
        }
        steps.undo(undo);
    }
}
