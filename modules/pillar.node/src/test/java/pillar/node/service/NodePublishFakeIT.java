package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.node.service.NodeFixture.GIB;
import static pillar.node.service.NodeFixture.code;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.node.sys.Errno;

/**
 * NodePublishVolume and NodeUnpublishVolume over a real socket with the fakes: bind mounts,
 * read-only, Block onto a file, the spec's table for repeated publishes, corrupted targets, and
 * the order stage, publish, unpublish, unstage.
 */
class NodePublishFakeIT {
    final FakeMounter mounter = new FakeMounter();
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(mounter, new FakeProcessRunner(), Duration.ofSeconds(5));

    private Path stage(String volume, VolumeCapability capability) {
        Path staging = node.staging(volume);
        node.node.nodeStageVolume(Csi.stage(volume, staging, capability, node.export(volume, GIB), Map.of()));
        return staging;
    }

    @Test
    void publishBindsTheStagingMountAndRepeatsAsOk() throws Exception {
        VolumeCapability cap = Csi.fs("ext4", Mode.SINGLE_NODE_MULTI_WRITER, "nodev", "noatime");
        Path staging = stage("pvc-1", cap);
        Path target = node.target("pvc-1", "pod-a");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, cap, false));
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, cap, false));
        assertThat(Files.isDirectory(target)).isTrue();
        assertThat(mounter.countAt(target)).isEqualTo(1);
        assertThat(mounter.find(target)).get().satisfies(e -> {
            assertThat(e.device()).isEqualTo(mounter.find(staging).orElseThrow().device());
            assertThat(e.readOnly()).isFalse();
        });
        assertThat(Files.readString(node.recordFile("pvc-1")))
                .contains("publication=rw SINGLE_NODE_MULTI_WRITER nodev,noatime " + target);

        assertThat(code(() -> node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, cap, true))))
                .isEqualTo(Status.Code.ALREADY_EXISTS);
        assertThat(code(() -> node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target,
                Csi.fs("ext4", Mode.SINGLE_NODE_MULTI_WRITER), false)))).isEqualTo(Status.Code.ALREADY_EXISTS);
        assertThat(mounter.countAt(target)).isEqualTo(1);
    }

    @Test
    void readOnlyWhenAskedOrWhenTheModeOnlyReads() {
        VolumeCapability rwo = Csi.ext4();
        Path staging = stage("pvc-1", rwo);
        Path ro = node.target("pvc-1", "pod-ro");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, ro, rwo, true));
        assertThat(mounter.find(ro)).get().satisfies(e -> assertThat(e.readOnly()).isTrue());

        Path rox = node.target("pvc-1", "pod-rox");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, rox, Csi.fs("ext4", Mode.SINGLE_NODE_READER_ONLY), false));
        assertThat(mounter.find(rox)).get().satisfies(e -> assertThat(e.readOnly()).isTrue());
    }

    @Test
    void aBlockVolumeIsBoundOntoAFile() throws Exception {
        VolumeCapability cap = Csi.block(Mode.SINGLE_NODE_MULTI_WRITER);
        Path staging = stage("pvc-b", cap);
        Path target = node.target("pvc-b", "pod-a").resolveSibling("pvc-b-device");
        node.node.nodePublishVolume(Csi.publish("pvc-b", staging, target, cap, false));
        assertThat(Files.isRegularFile(target)).isTrue();
        assertThat(mounter.calls()).contains("bind " + node.root.resolve("dev/nvme0n1") + " " + target);
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-b", target));
        assertThat(target).doesNotExist();
        assertThat(code(() -> node.node.nodePublishVolume(Csi.publish("pvc-b", staging, target, Csi.ext4(), false))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
    }

    @Test
    void aSecondTargetFollowsTheSpecsTable() {
        VolumeCapability snmw = Csi.fs("ext4", Mode.SINGLE_NODE_MULTI_WRITER);
        Path staging = stage("pvc-1", snmw);
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, node.target("pvc-1", "a"), snmw, false));
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, node.target("pvc-1", "b"), snmw, false));

        VolumeCapability snsw = Csi.fs("ext4", Mode.SINGLE_NODE_SINGLE_WRITER);
        Path staging2 = stage("pvc-2", snsw);
        node.node.nodePublishVolume(Csi.publish("pvc-2", staging2, node.target("pvc-2", "a"), snsw, false));
        assertThat(code(() -> node.node.nodePublishVolume(
                Csi.publish("pvc-2", staging2, node.target("pvc-2", "b"), snsw, false))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        // once the first pod is gone, the next may have it
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-2", node.target("pvc-2", "a")));
        node.node.nodePublishVolume(Csi.publish("pvc-2", staging2, node.target("pvc-2", "b"), snsw, false));
    }

    @Test
    void publishNeedsAStagedVolume() {
        Path staging = node.staging("pvc-x");
        Path target = node.target("pvc-x", "a");
        assertThat(code(() -> node.node.nodePublishVolume(Csi.publish("pvc-x", staging, target, Csi.ext4(), false))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        Path staged = stage("pvc-1", Csi.ext4());
        var noStaging = Csi.publish("pvc-1", staged, node.target("pvc-1", "a"), Csi.ext4(), false).toBuilder()
                .clearStagingTargetPath().build();
        assertThat(code(() -> node.node.nodePublishVolume(noStaging))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(code(() -> node.node.nodePublishVolume(
                Csi.publish("pvc-1", node.staging("elsewhere"), node.target("pvc-1", "a"), Csi.ext4(), false))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(mounter.countAt(node.target("pvc-1", "a"))).isZero();
    }

    @Test
    void unpublishIsIdempotentAndHandlesCorruptedMounts() throws Exception {
        Path staging = stage("pvc-1", Csi.ext4());
        Path target = node.target("pvc-1", "a");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, Csi.ext4(), false));
        mounter.corrupt(target, Errno.ENOTCONN);
        mounter.busy(target);
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", target));
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", target));
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", node.target("pvc-1", "never")));
        assertThat(mounter.countAt(target)).isZero();
        assertThat(target).doesNotExist();
        assertThat(Files.readString(node.recordFile("pvc-1"))).doesNotContain("publication=");
    }

    @Test
    void aHealthyBusyTargetIsNotDetached() {
        Path staging = stage("pvc-1", Csi.ext4());
        Path target = node.target("pvc-1", "a");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, Csi.ext4(), false));
        mounter.busy(target);
        assertThat(code(() -> node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", target))))
                .isEqualTo(Status.Code.INTERNAL);
        assertThat(mounter.countAt(target)).isEqualTo(1);
    }

    @Test
    void unstageWaitsForEveryUnpublish() {
        Path staging = stage("pvc-1", Csi.ext4());
        Path target = node.target("pvc-1", "a");
        node.node.nodePublishVolume(Csi.publish("pvc-1", staging, target, Csi.ext4(), false));
        assertThat(code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(mounter.countAt(staging)).isEqualTo(1);
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", target));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        assertThat(mounter.table()).isEmpty();
    }
}
