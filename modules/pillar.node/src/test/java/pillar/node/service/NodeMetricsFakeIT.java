package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.node.service.NodeFixture.GIB;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.node.sys.Errno;

/**
 * The node's meters as its health port serves them at {@code /metrics}, over the fakes: the gauges
 * read at scrape time follow stage, publish and their undoing; the corrupted-mount counter follows
 * each call that finds a corrupted mount; no label carries a volume or a path.
 */
class NodeMetricsFakeIT {
    final FakeMounter mounter = new FakeMounter();
    final FakeProcessRunner tools = new FakeProcessRunner();
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(mounter, tools, Duration.ofSeconds(5));

    @Test
    void gaugesCountRecordsControllersAndMountsAtEachScrape() {
        assertThat(node.scrape()).contains("pillar_node_stage_records 0.0\n", "pillar_node_connected_controllers 0.0\n",
                "pillar_node_mounts{kind=\"staging\"} 0.0\n", "pillar_node_mounts{kind=\"publish\"} 0.0\n");

        VolumeCapability ext4 = Csi.ext4();
        Path fsStaging = node.staging("pvc-fs");
        node.node.nodeStageVolume(Csi.stage("pvc-fs", fsStaging, ext4, node.export("pvc-fs", GIB), Map.of()));
        node.node.nodePublishVolume(Csi.publish("pvc-fs", fsStaging, node.target("pvc-fs", "a"), ext4, false));
        node.node.nodePublishVolume(Csi.publish("pvc-fs", fsStaging, node.target("pvc-fs", "b"), ext4, true));
        VolumeCapability block = Csi.block(Mode.SINGLE_NODE_WRITER);
        Path blockStaging = node.staging("pvc-bl");
        node.node.nodeStageVolume(Csi.stage("pvc-bl", blockStaging, block, node.export("pvc-bl", GIB), Map.of()));
        node.node.nodePublishVolume(Csi.publish("pvc-bl", blockStaging, node.target("pvc-bl", "c"), block, false));

        String staged = node.scrape();
        assertThat(staged).contains("pillar_node_stage_records 2.0\n", "pillar_node_connected_controllers 2.0\n",
                // a Block volume has no staging mount, its publication binds the device
                "pillar_node_mounts{kind=\"staging\"} 1.0\n", "pillar_node_mounts{kind=\"publish\"} 3.0\n",
                "pillar_node_corrupted_mounts_total 0.0\n",
                // the tools, timed as realPorts times them: blkid finds the fake's new device blank (exit 2)
                "pillar_node_command_seconds_count{command=\"blkid\",outcome=\"failed\"} 1\n",
                "pillar_node_command_seconds_count{command=\"mkfs.ext4\",outcome=\"ok\"} 1\n",
                "pillar_csi_operation_seconds_count{code=\"OK\",method=\"NodePublishVolume\",workload=\"node\"} 3\n")
                .doesNotContain("pvc-", node.root.toString(), "nqn.");

        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-fs", node.target("pvc-fs", "b")));
        assertThat(node.scrape()).contains("pillar_node_mounts{kind=\"publish\"} 2.0\n");
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-fs", node.target("pvc-fs", "a")));
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-bl", node.target("pvc-bl", "c")));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-fs", fsStaging));
        assertThat(node.scrape()).contains("pillar_node_stage_records 1.0\n", "pillar_node_connected_controllers 1.0\n",
                "pillar_node_mounts{kind=\"staging\"} 0.0\n", "pillar_node_mounts{kind=\"publish\"} 0.0\n");
    }

    @Test
    void eachCallThatFindsACorruptedMountCountsIt() {
        VolumeCapability ext4 = Csi.ext4();
        Path staging = node.staging("pvc-1");
        Path target = node.target("pvc-1", "a");
        var stage = Csi.stage("pvc-1", staging, ext4, node.export("pvc-1", GIB), Map.of());
        node.node.nodeStageVolume(stage);
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, ext4, false));
        node.node.nodeGetVolumeStats(Csi.stats("pvc-1", target));
        assertThat(node.scrape()).contains("pillar_node_corrupted_mounts_total 0.0\n");

        mounter.corrupt(target, Errno.ENOTCONN);
        assertThat(node.node.nodeGetVolumeStats(Csi.stats("pvc-1", target)).getVolumeCondition().getAbnormal()).isTrue();
        assertThat(node.scrape()).contains("pillar_node_corrupted_mounts_total 1.0\n");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, ext4, false)); // mounted again
        assertThat(node.scrape()).contains("pillar_node_corrupted_mounts_total 2.0\n");
        mounter.corrupt(staging, Errno.EIO);
        node.node.nodeStageVolume(stage); // unmounted and mounted again
        assertThat(mounter.countAt(staging)).isEqualTo(1);
        assertThat(node.scrape()).contains("pillar_node_corrupted_mounts_total 3.0\n");
    }

    @Test
    void aGaugeThatCannotBeReadLeavesTheOthersServed() throws Exception {
        Files.delete(node.state); // the state directory is gone: the records cannot be listed
        String text = node.scrape();
        assertThat(text).contains("pillar_node_corrupted_mounts_total 0.0\n")
                .doesNotContainPattern("(?m)^pillar_node_stage_records ")
                .doesNotContainPattern("(?m)^pillar_node_mounts\\{");
    }
}
