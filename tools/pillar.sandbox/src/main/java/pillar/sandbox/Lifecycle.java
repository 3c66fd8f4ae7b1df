package pillar.sandbox;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import pillar.api.context.PublishContext;
import pillar.api.csi.v1.ControllerExpandVolumeResponse;
import pillar.api.csi.v1.NodeGetVolumeStatsResponse;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeUsage;

/**
 * One volume's whole life, played as Kubernetes plays it: external-provisioner, external-attacher,
 * kubelet, a pod writing data, external-resizer, then everything undone. Each step is printed with
 * its duration and the kernel objects it changed, and checked against what must hold after it (the
 * device is there, the mount is there, the data reads back with its checksum, the size grew,
 * nothing is left at the end). The first failing step ends the run; what was set up is undone
 * best-effort and the result says which step failed.
 */
final class Lifecycle {
    private static final long MIB = 1 << 20;

    /** What to create: a claim of {@code bytes} growing to {@code grownBytes}, with the class's parameters. */
    record Plan(String label, VolumeMode mode, String fsType, Map<String, String> parameters, long bytes, long grownBytes) {
    }

    private final CsiController controller;
    private final KubeletNode node;
    private final List<Path> kubeletDirs;
    private final Steps steps;

    Lifecycle(CsiController controller, KubeletNode node, PrintStream out) {
        this.controller = controller;
        this.node = node;
        this.kubeletDirs = List.of(node.kubeletDir());
        this.steps = new Steps(out, kubeletDirs, 13);
    }

    /** Runs the plan; returns the steps (the last one failed if any did). */
    Steps.Result run(Plan plan) {
        String pvName = "pvc-" + UUID.randomUUID();
        String podUid = UUID.randomUUID().toString();
        boolean block = plan.mode().block();
        VolumeCapability capability = Capabilities.readWriteOnce(plan.mode(), plan.fsType());
        KernelObjects atStart = KernelObjects.read(kubeletDirs);
        State v = new State();
        try {
            steps.step("CreateVolume", () -> {
                v.volume = controller.create(pvName, plan.bytes(), capability, provisionerParameters(plan.parameters(), pvName));
                check(v.volume.getCapacityBytes() >= plan.bytes(), "capacity " + v.volume.getCapacityBytes()
                        + " is less than the " + plan.bytes() + " asked for");
                return v.volume.getVolumeId() + ", " + v.volume.getCapacityBytes() / MIB + " MiB, volume_context "
                        + v.volume.getVolumeContextMap();
            });
            String id = v.volume.getVolumeId();
            steps.step("ControllerPublishVolume", () -> {
                v.publishContext = controller.publish(v.volume, node.nodeId(), capability, false);
                String nqn = v.publishContext.get(PublishContext.NQN);
                check(nqn != null, "no " + PublishContext.NQN + " in the publish context " + v.publishContext);
                check(!KernelObjects.read(kubeletDirs).keysStartingWith("nvmet subsystem " + nqn).isEmpty(),
                        "the nvmet target has no subsystem " + nqn);
                return "node_id " + node.nodeId() + " -> publish_context " + v.publishContext;
            });
            String nqn = v.publishContext.get(PublishContext.NQN);
            steps.step("NodeStageVolume", () -> {
                v.staging = node.stagingPath(id, pvName, block);
                node.stage(v.volume, v.publishContext, v.staging, capability);
                KernelObjects now = KernelObjects.read(kubeletDirs);
                check(now.objects().values().stream().anyMatch(value -> value.endsWith(", " + nqn)), "no /dev/nvme device of " + nqn);
                check(block || !now.keysStartingWith("mount " + v.staging).isEmpty(), "nothing mounted at " + v.staging);
                return "staging_target_path " + v.staging;
            });
            steps.step("NodePublishVolume", () -> {
                v.target = node.targetPath(podUid, pvName, block);
                node.publish(v.volume, v.publishContext, v.staging, v.target, capability, false);
                check(!KernelObjects.read(kubeletDirs).keysStartingWith("mount " + v.target).isEmpty(),
                        "nothing mounted at " + v.target);
                return "target_path " + v.target;
            });
            steps.step("pod writes 8 MiB, fsync, checksum", () -> {
                v.checksum = VolumeData.write(v.target, block, plan.bytes());
                dropCaches();
                String back = VolumeData.read(v.target, block);
                check(back.equals(v.checksum), "read back " + back + ", wrote " + v.checksum);
                return "sha256 " + v.checksum.substring(0, 16) + "… read back equal" + (block ? " (raw device)" : "");
            });
            steps.step("NodeGetVolumeStats (before expansion)", () -> {
                NodeGetVolumeStatsResponse stats = node.stats(id, v.target, v.staging);
                v.statsBefore = total(stats, VolumeUsage.Unit.BYTES);
                return describe(stats);
            });
            steps.step("ControllerExpandVolume", () -> {
                ControllerExpandVolumeResponse r = controller.expand(id, plan.grownBytes(), capability);
                check(r.getCapacityBytes() >= plan.grownBytes(), "capacity " + r.getCapacityBytes() + " after expansion");
                return r.getCapacityBytes() / MIB + " MiB, node_expansion_required " + r.getNodeExpansionRequired();
            });
            steps.step("NodeExpandVolume, data intact", () -> {
                long capacity = node.expand(id, v.target, v.staging, plan.grownBytes(), capability).getCapacityBytes();
                dropCaches();
                String back = VolumeData.read(v.target, block);
                check(back.equals(v.checksum), "after expansion the data reads back as " + back);
                return "capacity " + capacity / MIB + " MiB, sha256 unchanged";
            });
            steps.step("NodeGetVolumeStats (after expansion)", () -> {
                NodeGetVolumeStatsResponse stats = node.stats(id, v.target, v.staging);
                check(!stats.getVolumeCondition().getAbnormal(), "abnormal: " + stats.getVolumeCondition().getMessage());
                long after = total(stats, VolumeUsage.Unit.BYTES);
                check(after > v.statsBefore, "total bytes " + after + " did not grow from " + v.statsBefore);
                return describe(stats);
            });
            steps.step("NodeUnpublishVolume", () -> {
                node.unpublish(id, v.target);
                check(KernelObjects.read(kubeletDirs).keysStartingWith("mount " + v.target).isEmpty(), v.target + " still mounted");
                check(!Files.exists(v.target), v.target + " still exists");
                return "";
            });
            steps.step("NodeUnstageVolume", () -> {
                node.unstage(id, v.staging);
                KernelObjects now = KernelObjects.read(kubeletDirs);
                check(now.keysStartingWith("mount " + v.staging).isEmpty(), v.staging + " still mounted");
                check(now.objects().values().stream().noneMatch(value -> value.contains(nqn)), "still connected to " + nqn);
                return "";
            });
            steps.step("ControllerUnpublishVolume", () -> {
                controller.unpublish(id, node.nodeId());
                check(KernelObjects.read(kubeletDirs).keysStartingWith("nvmet subsystem " + nqn + " allowed host "
                        + node.nodeId()).isEmpty(), "the target still allows " + node.nodeId());
                return "";
            });
            steps.step("DeleteVolume", () -> {
                controller.delete(id);
                List<String> left = KernelObjects.read(kubeletDirs).changesSince(atStart);
                check(left.isEmpty(), "left behind: " + left);
                return "nothing left: the kernel objects are as before CreateVolume";
            });
        } catch (Steps.StepFailed failed) {
            undo(v);
        }
        return steps.result(plan.label());
    }

    /** As external-provisioner passes them: without csi.storage.k8s.io/ keys, plus the claim's metadata. */
    static Map<String, String> provisionerParameters(Map<String, String> storageClass, String pvName) {
        Map<String, String> parameters = new java.util.TreeMap<>();
        storageClass.forEach((k, v) -> {
            if (!k.startsWith("csi.storage.k8s.io/")) {
                parameters.put(k, v);
            }
        });
        parameters.put("csi.storage.k8s.io/pvc/name", "sandbox-claim");
        parameters.put("csi.storage.k8s.io/pvc/namespace", "default");
        parameters.put("csi.storage.k8s.io/pv/name", pvName);
        return parameters;
    }

    private void undo(State v) {
        List<Runnable> undo = new ArrayList<>();
        if (v.target != null) {
            undo.add(() -> node.unpublish(v.volume.getVolumeId(), v.target));
        }
        if (v.staging != null) {
            undo.add(() -> node.unstage(v.volume.getVolumeId(), v.staging));
        }
        if (v.publishContext != null) {
            undo.add(() -> controller.unpublish(v.volume.getVolumeId(), node.nodeId()));
        }
        if (v.volume != null) {
            undo.add(() -> controller.delete(v.volume.getVolumeId()));
        }
        steps.undo(undo);
    }

    /** What the steps learn as they go. */
    private static final class State {
        Volume volume;
        Map<String, String> publishContext;
        Path staging;
        Path target;
        String checksum;
        long statsBefore;
    }

    static void dropCaches() throws IOException {
        // the next read goes to the device, over NVMe/TCP, not to the page cache
        Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3", StandardOpenOption.WRITE);
    }

    static long total(NodeGetVolumeStatsResponse stats, VolumeUsage.Unit unit) {
        return stats.getUsageList().stream().filter(u -> u.getUnit() == unit).mapToLong(VolumeUsage::getTotal)
                .findFirst().orElse(-1);
    }

    static String describe(NodeGetVolumeStatsResponse stats) {
        StringBuilder text = new StringBuilder();
        for (VolumeUsage u : stats.getUsageList()) {
            boolean bytes = u.getUnit() == VolumeUsage.Unit.BYTES;
            text.append(bytes ? "bytes " : "inodes ").append(bytes ? u.getUsed() / MIB + "/" + u.getTotal() / MIB + " MiB"
                    : u.getUsed() + "/" + u.getTotal()).append(" used, ");
        }
        return text + "condition " + (stats.getVolumeCondition().getAbnormal() ? "ABNORMAL " + stats.getVolumeCondition()
                .getMessage() : "normal");
    }

    static void check(boolean condition, String failure) {
        if (!condition) {
            throw new IllegalStateException(failure);
        }
    }
}
