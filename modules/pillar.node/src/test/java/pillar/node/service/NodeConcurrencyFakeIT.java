package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.node.service.NodeFixture.code;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;

/**
 * While a call on a volume is in flight, every other changing call on that volume answers ABORTED
 * at once; calls on other volumes and stats go on.
 */
class NodeConcurrencyFakeIT {
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(new FakeMounter(), new FakeProcessRunner(), Duration.ofSeconds(5));

    @Test
    void aSecondCallOnABusyVolumeIsAborted() throws Exception {
        Path staging1 = node.staging("pvc-1");
        var stage1 = Csi.stage("pvc-1", staging1, Csi.ext4(), node.export("pvc-1", 1L << 30), Map.of());
        var stage2 = Csi.stage("pvc-2", node.staging("pvc-2"), Csi.ext4(), node.export("pvc-2", 1L << 30), Map.of());
        CountDownLatch gate = node.initiator.holdConnects();
        CompletableFuture<Status.Code> first = CompletableFuture.supplyAsync(() -> code(() -> node.node.nodeStageVolume(stage1)));
        node.initiator.awaitEntered();

        assertThat(code(() -> node.node.nodeStageVolume(stage1))).isEqualTo(Status.Code.ABORTED);
        assertThat(code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging1)))).isEqualTo(Status.Code.ABORTED);
        assertThat(code(() -> node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", node.target("pvc-1", "a")))))
                .isEqualTo(Status.Code.ABORTED);
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("pvc-1", staging1))))
                .isEqualTo(Status.Code.NOT_FOUND); // not locked: it answers from what is recorded
        gate.countDown();
        assertThat(first.get()).isEqualTo(Status.Code.OK);
        node.node.nodeStageVolume(stage2);
        node.node.nodeStageVolume(stage1);
    }
}
