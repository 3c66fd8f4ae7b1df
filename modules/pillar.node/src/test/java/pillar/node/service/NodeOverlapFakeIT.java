package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.node.service.NodeFixture.code;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.node.sys.Hangs;

/**
 * Stages and unstages of different volumes overlap as far as the kernel lets them: a disconnect in
 * the kernel holds up no stage and no other unstage; a connect in the kernel holds up the next
 * connect (nvmf_dev_mutex), and nothing else. A recorded controller name is trusted only while it
 * still reaches the volume's subsystem.
 */
class NodeOverlapFakeIT {
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(new FakeMounter(), new FakeProcessRunner(), Duration.ofSeconds(5));
    /** A thread per call: the common pool of a 2-CPU machine has one, which a held call would take. */
    private final ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().factory());

    @Test
    void aDisconnectInTheKernelHoldsUpNoStageAndNoOtherUnstage() throws Exception {
        Path staging1 = stage("pvc-1");
        Path staging2 = stage("pvc-2");
        Hangs.Hang hang = node.initiator.hangDisconnectsFrom(NodeFixture.nqn("pvc-2"));
        CompletableFuture<Status.Code> held = CompletableFuture.supplyAsync(
                () -> code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-2", staging2))), threads);
        hang.awaitEntered();

        CompletableFuture<Path> other = CompletableFuture.supplyAsync(() -> stage("pvc-3"), threads);
        assertThat(other.get(10, TimeUnit.SECONDS)).as("a stage of another volume, connect included").isNotNull();
        CompletableFuture<Status.Code> unstage1 = CompletableFuture.supplyAsync(
                () -> code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging1))), threads);
        assertThat(unstage1.get(10, TimeUnit.SECONDS)).as("another disconnect").isEqualTo(Status.Code.OK);
        assertThat(held).as("still in the kernel").isNotDone();

        hang.release();
        assertThat(held.get(10, TimeUnit.SECONDS)).isEqualTo(Status.Code.OK);
        assertThat(node.initiator.calls()).contains("disconnect nvme0", "disconnect nvme1");
    }

    @Test
    void aConnectInTheKernelHoldsUpTheNextConnectOnly() throws Exception {
        Path staging3 = stage("pvc-3");
        var stage1 = Csi.stage("pvc-1", node.staging("pvc-1"), Csi.ext4(), node.export("pvc-1", 1L << 30), Map.of());
        var stage2 = Csi.stage("pvc-2", node.staging("pvc-2"), Csi.ext4(), node.export("pvc-2", 1L << 30), Map.of());
        Hangs.Hang hang = node.initiator.hangConnectsTo(NodeFixture.nqn("pvc-1"));
        CompletableFuture<Status.Code> first = CompletableFuture.supplyAsync(() -> code(() -> node.node.nodeStageVolume(stage1)), threads);
        hang.awaitEntered();

        CompletableFuture<Status.Code> second = CompletableFuture.supplyAsync(() -> code(() -> node.node.nodeStageVolume(stage2)), threads);
        assertThat(code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-3", staging3))))
                .as("a disconnect goes past the connect in the kernel").isEqualTo(Status.Code.OK);
        Thread.sleep(300);
        assertThat(second).as("the kernel runs one connect at a time").isNotDone();

        hang.release();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(Status.Code.OK);
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(Status.Code.OK);
    }

    @Test
    void anUnstageDisconnectsTheControllerThatReachesTheVolumeNotTheRecordedName() throws Exception {
        Path staging1 = stage("pvc-1");
        stage("pvc-2");
        // after a reboot the kernel numbers controllers anew: pvc-1's recorded name is now pvc-2's controller
        Path record = node.recordFile("pvc-1");
        Files.writeString(record, Files.readString(record).replace("controller=nvme0", "controller=nvme1"));

        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging1));

        assertThat(node.initiator.calls()).contains("disconnect nvme0").doesNotContain("disconnect nvme1");
        assertThat(node.root.resolve("sys/class/nvme/nvme1")).exists();
    }

    @Test
    void statsAndExpandLookAtTheControllerThatReachesTheVolumeNotTheRecordedName() throws Exception {
        Path staging1 = stage("pvc-1");
        stage("pvc-2");
        Path record = node.recordFile("pvc-1");
        Files.writeString(record, Files.readString(record).replace("controller=nvme0", "controller=nvme1"));
        // pvc-2's controller (the recorded name's) is unwell; pvc-1's own is live
        node.initiator.state(new pillar.node.nvme.Controller(1), "connecting");

        assertThat(node.node.nodeGetVolumeStats(Csi.stats("pvc-1", staging1)).getVolumeCondition().getAbnormal())
                .as("pvc-1's own controller, nvme0, is live").isFalse();
        node.node.nodeExpandVolume(pillar.api.csi.v1.NodeExpandVolumeRequest.newBuilder().setVolumeId("pvc-1")
                .setVolumePath(staging1.toString()).build());
        assertThat(node.initiator.calls()).contains("rescan nvme0").doesNotContain("rescan nvme1");
    }

    private Path stage(String volume) {
        Path staging = node.staging(volume);
        node.node.nodeStageVolume(Csi.stage(volume, staging, Csi.ext4(), node.export(volume, 1L << 30), Map.of()));
        return staging;
    }
}
