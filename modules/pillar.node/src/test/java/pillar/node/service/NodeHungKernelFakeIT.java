package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.node.service.NodeFixture.code;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.node.sys.Hangs;

/**
 * Kernel work that hangs (a connect, a mount, an unmount) fails its call with DEADLINE_EXCEEDED at
 * the kernel deadline; while it is still stuck, calls that would touch the same object answer
 * ABORTED without starting another attempt; other volumes go on meanwhile (except new connects,
 * which the kernel itself serializes); once the kernel lets go, a retry converges.
 */
@Timeout(120) // without the deadline a hung call would hang the test: fail it instead
class NodeHungKernelFakeIT {
    private static final Duration DEADLINE = Duration.ofSeconds(1);

    final FakeMounter mounter = new FakeMounter();
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(mounter, new FakeProcessRunner(), Duration.ofSeconds(5), DEADLINE);
    NodeStageVolumeRequest stage1;
    NodeStageVolumeRequest stage2;

    @BeforeEach
    void volumes() {
        stage1 = Csi.stage("pvc-1", node.staging("pvc-1"), Csi.ext4(), node.export("pvc-1", 1L << 30), Map.of());
        stage2 = Csi.stage("pvc-2", node.staging("pvc-2"), Csi.ext4(), node.export("pvc-2", 1L << 30), Map.of());
    }

    @Test
    void aHungConnectFailsAtTheDeadlineAndVolumesAlreadyConnectedGoOn() throws Exception {
        NodeStageVolumeRequest stage3 = Csi.stage("pvc-3", node.staging("pvc-3"), Csi.ext4(),
                node.export("pvc-3", 1L << 30), Map.of());
        node.node.nodeStageVolume(stage3);
        Hangs.Hang hang = node.initiator.hangConnectsTo(NodeFixture.nqn("pvc-1"));
        long t0 = System.nanoTime();
        CompletableFuture<StatusRuntimeException> first = CompletableFuture.supplyAsync(() -> failure(stage1));
        hang.awaitEntered();

        // a staged volume is published, unpublished and unstaged (disconnected) while the connect hangs
        Path target3 = node.target("pvc-3", "pod-3");
        node.node.nodePublishVolume(Csi.publish("pvc-3", node.staging("pvc-3"), target3, Csi.ext4(), false));
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-3", target3));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-3", node.staging("pvc-3")));
        assertThat(node.initiator.count("disconnect")).isEqualTo(1);
        assertThat(first).as("the connect still hangs").isNotDone();

        StatusRuntimeException failed = first.get(30, TimeUnit.SECONDS);
        assertThat(failed.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(failed.getStatus().getDescription()).contains("the connect to nqn.2024-01.io.pillar-csi:pvc-1")
                .contains("did not return within 1 s");
        assertThat(elapsedMs(t0)).isBetween(DEADLINE.toMillis(), DEADLINE.toMillis() + 10_000);

        StatusRuntimeException retry = failure(stage1);
        assertThat(retry.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(retry.getStatus().getDescription()).contains("is still stuck in the kernel");
        assertThat(hang.callers()).as("no second attempt entered the kernel").isEqualTo(1);
        // a new volume's connect waits behind the stuck one, as in the kernel (one mutex for every connect),
        // and fails at its own deadline, not with the first one's refusal
        assertThat(failure(stage2).getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(node.kernel.stuckCount()).isEqualTo(2);

        hang.release();
        awaitNothingStuck();
        node.node.nodeStageVolume(stage1); // the connect the kernel finished late is reused
        node.node.nodeStageVolume(stage2);
        assertThat(mounter.countAt(node.staging("pvc-1"))).isEqualTo(1);
        assertThat(mounter.countAt(node.staging("pvc-2"))).isEqualTo(1);
    }

    @Test
    void aHungMountFailsAtTheDeadlineAndRetriesAnswerAbortedUntilItReturns() throws Exception {
        Path staging = node.staging("pvc-1");
        Hangs.Hang hang = mounter.hang(staging);
        assertThat(failure(stage1).getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        assertThat(hang.callers()).isEqualTo(1);

        node.node.nodeStageVolume(stage2);
        assertThat(code(() -> node.node.nodeStageVolume(stage1))).isEqualTo(Status.Code.ABORTED);
        assertThat(code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging)))).isEqualTo(Status.Code.ABORTED);
        assertThat(node.recordFile("pvc-1")).as("a refused unstage changes nothing").exists();
        assertThat(hang.callers()).isEqualTo(1);

        hang.release();
        awaitNothingStuck();
        node.node.nodeStageVolume(stage1); // the mount the kernel finished late is found, not stacked
        assertThat(mounter.countAt(staging)).isEqualTo(1);
    }

    @Test
    void aHungUnmountFailsAtTheDeadlineAndKeepsTheRecord() throws Exception {
        Path staging = node.staging("pvc-1");
        node.node.nodeStageVolume(stage1);
        Hangs.Hang hang = mounter.hang(staging);
        assertThat(code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging))))
                .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
        node.node.nodeStageVolume(stage2);
        assertThat(code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging)))).isEqualTo(Status.Code.ABORTED);
        assertThat(node.recordFile("pvc-1")).exists();
        assertThat(node.initiator.count("disconnect")).as("nothing disconnected under a stuck unmount").isZero();

        hang.release();
        awaitNothingStuck();
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        assertThat(Files.exists(node.recordFile("pvc-1"))).isFalse();
        assertThat(mounter.countAt(staging)).isZero();
        assertThat(node.initiator.count("disconnect")).isEqualTo(1);
    }

    private StatusRuntimeException failure(NodeStageVolumeRequest request) {
        try {
            node.node.nodeStageVolume(request);
        } catch (StatusRuntimeException e) {
            return e;
        }
        throw new AssertionError("NodeStageVolume of " + request.getVolumeId() + " succeeded");
    }

    private void awaitNothingStuck() throws InterruptedException {
        Hangs.awaitNothingStuck(node.kernel, Duration.ofSeconds(10));
    }

    private static long elapsedMs(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
