package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;

/** The stage records carry a volume across a restart of the node service: unstage needs no context. */
class NodeRestartFakeIT {
    final FakeMounter mounter = new FakeMounter();
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(mounter, new FakeProcessRunner(), Duration.ofSeconds(5));

    @Test
    void aRestartedServiceFinishesFromTheRecords() throws Exception {
        Path staging = node.staging("pvc-1");
        Path target = node.target("pvc-1", "a");
        var cap = Csi.fs("xfs", Mode.SINGLE_NODE_SINGLE_WRITER);
        node.node.nodeStageVolume(Csi.stage("pvc-1", staging, cap, node.export("pvc-1", 1L << 30), Map.of()));
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, cap, false));
        Path blockStaging = node.staging("pvc-b");
        node.node.nodeStageVolume(Csi.stage("pvc-b", blockStaging, Csi.block(Mode.SINGLE_NODE_WRITER),
                node.export("pvc-b", 1L << 30), Map.of()));
        String record = Files.readString(node.recordFile("pvc-1"));

        node.restart();

        assertThat(Files.readString(node.recordFile("pvc-1"))).isEqualTo(record);
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, cap, false)); // still idempotent
        assertThat(node.node.nodeGetVolumeStats(Csi.stats("pvc-1", target)).getVolumeCondition().getAbnormal()).isFalse();
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", target));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-b", blockStaging));
        assertThat(mounter.table()).isEmpty();
        assertThat(node.initiator.calls()).contains("disconnect nvme0", "disconnect nvme1");
        assertThat(Files.list(node.state)).isEmpty();
    }
}
