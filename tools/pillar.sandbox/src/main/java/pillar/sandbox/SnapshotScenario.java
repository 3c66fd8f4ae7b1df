package pillar.sandbox;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import pillar.api.csi.v1.Snapshot;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;

/**
 * One volume's snapshots and clones, played as external-snapshotter, external-provisioner and
 * kubelet play them ({@code dev/sandbox --scenario snapshot}): data written and checksummed, a
 * snapshot taken, other data written over it, the snapshot restored into a larger volume (which reads
 * the snapshot-time checksum), the source cloned (which reads the current one and then takes writes
 * of its own without changing the source), and everything deleted in the order that is hardest for
 * a backend: the snapshot while its restore lives, the source while its clone lives. Each step
 * prints the kernel objects it changed; at the end they are as before the first step.
 */
final class SnapshotScenario {
    private static final long MIB = 1 << 20;

    private final CsiController controller;
    private final KubeletNode node;
    private final Steps steps;

    SnapshotScenario(CsiController controller, KubeletNode node, PrintStream out) {
        this.controller = controller;
        this.node = node;
        this.steps = new Steps(out, List.of(node.kubeletDir()), 12);
    }

    /** Runs the scenario on a class of {@code plan}'s parameters; returns the steps (the last one failed if any did). */
    Steps.Result run(Lifecycle.Plan plan) {
        VolumeCapability capability = Capabilities.readWriteOnce(plan.mode(), plan.fsType());
        boolean block = plan.mode().block();
        KernelObjects atStart = KernelObjects.read(List.of(node.kubeletDir()));
        State s = new State();
        try {
            steps.step("CreateVolume (the source)", () -> {
                s.source = create("pvc-" + UUID.randomUUID(), plan, capability, null);
                return s.source.getVolumeId() + ", " + s.source.getCapacityBytes() / MIB + " MiB";
            });
            steps.step("attach the source, write 8 MiB, checksum", () -> {
                s.sourceAttached = attach(s.source, capability);
                s.atSnapshot = VolumeData.write(s.sourceAttached.target(), block, 1);
                return "sha256 " + brief(s.atSnapshot);
            });
            steps.step("CreateSnapshot", () -> {
                s.snapshot = controller.snapshot("snapshot-" + UUID.randomUUID(), s.source.getVolumeId());
                Lifecycle.check(s.snapshot.getReadyToUse(), "ready_to_use is false: " + s.snapshot);
                return s.snapshot.getSnapshotId() + ", " + s.snapshot.getSizeBytes() / MIB + " MiB, ready_to_use";
            });
            steps.step("write other data over it in the source", () -> {
                s.afterSnapshot = VolumeData.rewrite(s.sourceAttached.target(), block, 2);
                Lifecycle.dropCaches();
                Lifecycle.check(VolumeData.read(s.sourceAttached.target(), block).equals(s.afterSnapshot), "the source did not take the write");
                return "sha256 " + brief(s.afterSnapshot);
            });
            steps.step("CreateVolume from the snapshot (larger)", () -> {
                s.restored = create("pvc-" + UUID.randomUUID(), plan, capability,
                        CsiController.fromSnapshot(s.snapshot.getSnapshotId()));
                Lifecycle.check(s.restored.getCapacityBytes() >= plan.grownBytes(), "restored at " + s.restored.getCapacityBytes());
                return s.restored.getVolumeId() + ", " + s.restored.getCapacityBytes() / MIB + " MiB, content_source "
                        + s.restored.getContentSource().getSnapshot().getSnapshotId();
            });
            steps.step("attach the restore: the snapshot-time data", () -> {
                s.restoredAttached = attach(s.restored, capability);
                String back = VolumeData.read(s.restoredAttached.target(), block);
                Lifecycle.check(back.equals(s.atSnapshot), "the restore reads " + brief(back) + ", the snapshot held "
                        + brief(s.atSnapshot));
                return "sha256 " + brief(back) + " = at the snapshot";
            });
            steps.step("CreateVolume cloned from the source", () -> {
                s.clone = create("pvc-" + UUID.randomUUID(), plan, capability, CsiController.fromVolume(s.source.getVolumeId()));
                return s.clone.getVolumeId() + ", content_source " + s.clone.getContentSource().getVolume().getVolumeId();
            });
            steps.step("attach the clone: the source's data, then its own", () -> {
                s.cloneAttached = attach(s.clone, capability);
                String back = VolumeData.read(s.cloneAttached.target(), block);
                Lifecycle.check(back.equals(s.afterSnapshot), "the clone reads " + brief(back) + ", the source holds "
                        + brief(s.afterSnapshot));
                String own = VolumeData.rewrite(s.cloneAttached.target(), block, 3);
                Lifecycle.dropCaches();
                String source = VolumeData.read(s.sourceAttached.target(), block);
                Lifecycle.check(source.equals(s.afterSnapshot), "a write to the clone changed the source to " + brief(source));
                return "sha256 " + brief(back) + " = the source; its own write " + brief(own) + " left the source as it was";
            });
            steps.step("detach all three", () -> {
                detachAll(s);
                return "";
            });
            steps.step("DeleteSnapshot (its restore still lives)", () -> {
                controller.deleteSnapshot(s.snapshot.getSnapshotId());
                s.snapshot = null;
                return "";
            });
            steps.step("DeleteVolume the source (its clone still lives)", () -> {
                controller.delete(s.source.getVolumeId());
                s.source = null;
                return "";
            });
            steps.step("DeleteVolume the restore and the clone", () -> {
                controller.delete(s.restored.getVolumeId());
                s.restored = null;
                controller.delete(s.clone.getVolumeId());
                s.clone = null;
                List<String> left = KernelObjects.read(List.of(node.kubeletDir())).changesSince(atStart);
                Lifecycle.check(left.isEmpty(), "left behind: " + left);
                return "nothing left: the kernel objects are as before the first step";
            });
        } catch (Steps.StepFailed failed) {
            undo(s);
        }
        return steps.result("snapshot " + plan.label());
    }

    private Volume create(String name, Lifecycle.Plan plan, VolumeCapability capability,
                          pillar.api.csi.v1.VolumeContentSource source) {
        var parameters = Lifecycle.provisionerParameters(plan.parameters(), name);
        return source == null ? controller.create(name, plan.bytes(), capability, parameters)
                : controller.createFrom(name, plan.grownBytes(), capability, parameters, source);
    }

    private Attached attach(Volume volume, VolumeCapability capability) {
        return Attached.attach(controller, node, volume, capability, false);
    }

    private void detachAll(State s) {
        for (Attached a : new Attached[] {s.cloneAttached, s.restoredAttached, s.sourceAttached}) {
            if (a != null) {
                a.detach(controller);
            }
        }
        s.cloneAttached = null;
        s.restoredAttached = null;
        s.sourceAttached = null;
    }

    private void undo(State s) {
        List<Runnable> undo = new ArrayList<>();
        undo.add(() -> detachAll(s));
        if (s.snapshot != null) {
            undo.add(() -> controller.deleteSnapshot(s.snapshot.getSnapshotId()));
        }
        for (Volume v : new Volume[] {s.clone, s.restored, s.source}) {
            if (v != null) {
                undo.add(() -> controller.delete(v.getVolumeId()));
            }
        }
        steps.undo(undo);
    }

    private static String brief(String sha256) {
        return sha256.substring(0, 16) + "…";
    }

    /** What the steps learn as they go. */
    private static final class State {
        Volume source;
        Volume restored;
        Volume clone;
        Snapshot snapshot;
        Attached sourceAttached;
        Attached restoredAttached;
        Attached cloneAttached;
        String atSnapshot;
        String afterSnapshot;
    }
}
