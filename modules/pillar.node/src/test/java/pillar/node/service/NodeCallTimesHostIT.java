package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.mount.HostLoops;

/**
 * Measures each Node call on the host tier (client side, over the UNIX socket) next to the bare
 * commands that do the same work on a second loop device, and prints the table. It asserts what
 * happened, never how long it took: timings on shared cores vary too much to be a verdict.
 */
class NodeCallTimesHostIT {
    private static final long MIB = 1L << 20;

    @TempDir
    Path root;
    HostNode host;
    final List<String> rows = new ArrayList<>();

    @BeforeEach
    void start() {
        host = new HostNode(root);
    }

    @AfterEach
    void stop() {
        host.close();
        rows.forEach(r -> System.out.println("[timing] " + r));
    }

    private long ms(Runnable action) {
        long started = System.nanoTime();
        action.run();
        return (System.nanoTime() - started) / 1_000_000;
    }

    private void row(String call, long callMs, String bare, long bareMs) {
        rows.add(String.format("%-28s %6d ms   | %-40s %6d ms", call, callMs, bare, bareMs));
    }

    /** The same calls once, unmeasured: class loading and JIT of the first calls are not the calls' cost. */
    private void warmUp(NodeFixture node, VolumeCapability cap) {
        Path staging = node.staging("pvc-warm");
        Path target = node.target("pvc-warm", "a");
        node.node.nodeStageVolume(Csi.stage("pvc-warm", staging, cap, node.export("pvc-warm", 320 * MIB), Map.of()));
        node.node.nodePublishVolume(Csi.publish("pvc-warm", staging, target, cap, false));
        node.node.nodeGetVolumeStats(Csi.stats("pvc-warm", target));
        node.node.nodeExpandVolume(Csi.expand("pvc-warm", target, 0));
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-warm", target));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-warm", staging));
    }

    @Test
    void xfsCallsNextToTheBareCommands() throws Exception {
        NodeFixture node = host.fixture;
        VolumeCapability cap = Csi.fs("xfs", Mode.SINGLE_NODE_WRITER);
        warmUp(node, cap);
        int warmCommands = host.tools.ran().size();
        Path staging = node.staging("pvc-t");
        Path target = node.target("pvc-t", "a");
        var stage = Csi.stage("pvc-t", staging, cap, node.export("pvc-t", 320 * MIB), Map.of());

        Path bareDevice = host.loops.create("bare", 320 * MIB);
        Path bareStaging = Files.createDirectories(root.resolve("bare/staging"));
        Path bareTarget = Files.createDirectories(root.resolve("bare/target"));

        row("NodeStageVolume (blank)", ms(() -> node.node.nodeStageVolume(stage)),
                "blkid -p; mkfs.xfs; mount", ms(() -> {
                    try {
                        HostLoops.run("blkid", "-p", bareDevice.toString());
                    } catch (RuntimeException expectedBlank) {
                        // exit 2: nothing on it
                    }
                    HostLoops.run("mkfs.xfs", "-q", bareDevice.toString());
                    HostLoops.run("mount", bareDevice.toString(), bareStaging.toString());
                }));
        row("NodeStageVolume (repeat)", ms(() -> node.node.nodeStageVolume(stage)), "-", 0);
        row("NodePublishVolume", ms(() -> node.node.nodePublishVolume(Csi.publish("pvc-t", staging, target, cap, false))),
                "mount --bind", ms(() -> HostLoops.run("mount", "--bind", bareStaging.toString(), bareTarget.toString())));
        row("NodeGetVolumeStats", ms(() -> node.node.nodeGetVolumeStats(Csi.stats("pvc-t", target))),
                "stat -f", ms(() -> HostLoops.run("stat", "-f", bareTarget.toString())));
        host.loops.grow(node.backingOf("pvc-t"), 640 * MIB);
        host.loops.grow(bareDevice, 640 * MIB);
        row("NodeExpandVolume", ms(() -> node.node.nodeExpandVolume(Csi.expand("pvc-t", target, 640 * MIB))),
                "xfs_growfs -d", ms(() -> HostLoops.run("xfs_growfs", "-d", bareStaging.toString())));
        row("NodeUnpublishVolume", ms(() -> node.node.nodeUnpublishVolume(Csi.unpublish("pvc-t", target))),
                "umount (bind)", ms(() -> HostLoops.run("umount", bareTarget.toString())));
        row("NodeUnstageVolume", ms(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-t", staging))),
                "umount", ms(() -> HostLoops.run("umount", bareStaging.toString())));

        assertThat(host.tools.count("mkfs.xfs")).isEqualTo(2);
        assertThat(NodeHostIT.mountsBelow(root)).isZero();
        host.tools.ran().subList(warmCommands, host.tools.ran().size()).forEach(r -> rows.add(String.format("  inside the calls: %-50s %6d ms",
                String.join(" ", r.command().argv()).replace(root.toString(), "<tmp>"), r.millis())));
    }
}
