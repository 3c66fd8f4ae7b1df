package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.node.service.NodeFixture.GIB;
import static pillar.node.service.NodeFixture.code;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.NodeGetVolumeStatsResponse;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.csi.v1.VolumeUsage;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.node.nvme.Controller;
import pillar.node.sys.Errno;
import pillar.node.sys.FsStats;

/** NodeGetVolumeStats and NodeExpandVolume over a real socket with the fakes. */
class NodeStatsExpandFakeIT {
    final FakeMounter mounter = new FakeMounter();
    final FakeProcessRunner tools = new FakeProcessRunner();
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(mounter, tools, Duration.ofSeconds(2));

    private Path stage(String volume, VolumeCapability capability) {
        Path staging = node.staging(volume);
        node.node.nodeStageVolume(Csi.stage(volume, staging, capability, node.export(volume, GIB), Map.of()));
        return staging;
    }

    @Test
    void statsReportBytesInodesAndAHealthyCondition() {
        Path staging = stage("pvc-1", Csi.ext4());
        Path target = node.target("pvc-1", "a");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, Csi.ext4(), false));
        mounter.stats(new FsStats(1000, 600, 300, 50, 40, 10));
        NodeGetVolumeStatsResponse stats = node.node.nodeGetVolumeStats(Csi.stats("pvc-1", target));
        assertThat(stats.getUsageList()).containsExactly(
                VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.BYTES).setTotal(1000).setAvailable(600).setUsed(300).build(),
                VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.INODES).setTotal(50).setAvailable(40).setUsed(10).build());
        assertThat(stats.getVolumeCondition().getAbnormal()).isFalse();
        assertThat(node.node.nodeGetVolumeStats(Csi.stats("pvc-1", staging)).getUsageCount()).isEqualTo(2);
    }

    @Test
    void aCorruptedMountOrAControllerThatIsNotLiveIsAbnormal() {
        Path staging = stage("pvc-1", Csi.ext4());
        Path target = node.target("pvc-1", "a");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, Csi.ext4(), false));
        mounter.corrupt(target, Errno.EIO);
        var corrupted = node.node.nodeGetVolumeStats(Csi.stats("pvc-1", target)).getVolumeCondition();
        assertThat(corrupted.getAbnormal()).isTrue();
        assertThat(corrupted.getMessage()).contains("corrupted");

        node.initiator.state(new Controller(0), "connecting");
        var stats = node.node.nodeGetVolumeStats(Csi.stats("pvc-1", staging));
        assertThat(stats.getVolumeCondition().getAbnormal()).isTrue();
        assertThat(stats.getVolumeCondition().getMessage()).contains("nvme0 is connecting, not live");
        assertThat(stats.getUsageCount()).isEqualTo(2); // the mount itself still answers
    }

    @Test
    void blockStatsAreTheDeviceSize() {
        VolumeCapability cap = Csi.block(Mode.SINGLE_NODE_WRITER);
        Path staging = stage("pvc-b", cap);
        var stats = node.node.nodeGetVolumeStats(Csi.stats("pvc-b", staging));
        assertThat(stats.getUsageList()).singleElement().satisfies(u -> {
            assertThat(u.getUnit()).isEqualTo(VolumeUsage.Unit.BYTES);
            assertThat(u.getTotal()).isEqualTo(GIB);
        });
        assertThat(stats.getVolumeCondition().getAbnormal()).isFalse();
    }

    @Test
    void statsOfAnUnknownVolumeOrPathAreNotFound() {
        Path staging = stage("pvc-1", Csi.ext4());
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("pvc-none", staging)))).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("pvc-1", node.target("pvc-1", "x")))))
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-none", staging, GIB))))
                .isEqualTo(Status.Code.NOT_FOUND);
    }

    @Test
    void aVolumeThisNodeDoesNotKnowIsNotFoundWhateverThePathsShapeOnlyMissingFieldsComeFirst() {
        Path staging = stage("pvc-1", Csi.ext4());
        // sanity: "Node Service NodeGetVolumeStats should fail when volume is not found" (path "some/path")
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("pvc-none", Path.of("some/path")))))
                .isEqualTo(Status.Code.NOT_FOUND);
        // sanity: "Node Service NodeGetVolumeStats should fail when volume does not exist on the specified path"
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("pvc-1", Path.of("some/path")))))
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("pvc-1", Path.of("/")))))
                .isEqualTo(Status.Code.NOT_FOUND);
        // a value that is no pillar-csi volume ID names no volume of this node
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("Fake_Vol", staging)))).isEqualTo(Status.Code.NOT_FOUND);
        // sanity: "Node Service NodeExpandVolume should fail when volume is not found"
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-none", Path.of("some/path"), 0))))
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-1", Path.of("some/path"), 0))))
                .isEqualTo(Status.Code.NOT_FOUND);
        // sanity: "... should fail when no volume id is provided" / "... when no volume path is provided"
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("", Path.of("some/path")))))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(code(() -> node.node.nodeGetVolumeStats(Csi.stats("Fake_Vol", staging).toBuilder().clearVolumePath().build())))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("", Path.of("some/path"), 0))))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, 0).toBuilder().clearVolumePath().build())))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(mounter.calls()).as("no path but the recorded ones reaches the mounter").allSatisfy(call ->
                assertThat(call).doesNotContain("some/path"));
    }

    @Test
    void expandRescansAndGrowsTheFilesystem() throws Exception {
        Path staging = stage("pvc-1", Csi.ext4());
        try (RandomAccessFile f = new RandomAccessFile(node.root.resolve("backing/pvc-1.img").toFile(), "rw")) {
            f.setLength(2 * GIB); // the controller grew the LV, the target revalidated; the host missed the notice
        }
        var response = node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, 2 * GIB));
        assertThat(response.getCapacityBytes()).isEqualTo(2 * GIB);
        assertThat(node.initiator.calls()).contains("rescan nvme0");
        assertThat(tools.commands()).anySatisfy(c -> assertThat(c.argv())
                .containsExactly("resize2fs", node.root.resolve("dev/nvme0n1").toString()));
        // repeated: already large enough, still grows idempotently
        assertThat(node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, 2 * GIB)).getCapacityBytes()).isEqualTo(2 * GIB);
    }

    @Test
    void expandOfXfsGrowsAtTheStagingMountAndBlockOnlyReports() throws Exception {
        Path staging = stage("pvc-x", Csi.fs("xfs", Mode.SINGLE_NODE_WRITER));
        Path target = node.target("pvc-x", "a");
        node.node.nodePublishVolume(Csi.publish("pvc-x", staging, target, Csi.fs("xfs", Mode.SINGLE_NODE_WRITER), false));
        node.node.nodeExpandVolume(Csi.expand("pvc-x", target, 0));
        assertThat(tools.commands()).anySatisfy(c -> assertThat(c.argv()).containsExactly("xfs_growfs", "-d", staging.toString()));

        Path blockStaging = stage("pvc-b", Csi.block(Mode.SINGLE_NODE_WRITER));
        long before = tools.commands().size();
        assertThat(node.node.nodeExpandVolume(Csi.expand("pvc-b", blockStaging, GIB)).getCapacityBytes()).isEqualTo(GIB);
        assertThat(tools.commands()).hasSize((int) before);
    }

    @Test
    void expandChecksItsArguments() {
        Path staging = stage("pvc-1", Csi.ext4());
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, GIB).toBuilder()
                .setVolumeCapability(Csi.block(Mode.SINGLE_NODE_WRITER)).build()))).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, GIB).toBuilder()
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(2 * GIB).setLimitBytes(GIB)).build())))
                .isEqualTo(Status.Code.OUT_OF_RANGE);
        // the size never comes: the controller has not grown the volume
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, 4 * GIB))))
                .isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(tools.count("resize2fs")).isZero();
    }
}
