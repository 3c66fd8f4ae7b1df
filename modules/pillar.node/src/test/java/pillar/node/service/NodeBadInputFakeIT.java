package pillar.node.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.node.service.NodeFixture.code;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.context.PublishContext;
import pillar.api.context.VolumeContext;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;

/**
 * Hostile and malformed requests get INVALID_ARGUMENT (or the spec's code) and change nothing on
 * the host: no mount, no command, no connect, no record, no directory.
 */
class NodeBadInputFakeIT {
    final FakeMounter mounter = new FakeMounter();
    final FakeProcessRunner tools = new FakeProcessRunner();
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(mounter, tools, Duration.ofSeconds(2));

    private NodeStageVolumeRequest good() {
        return Csi.stage("pvc-1", node.staging("pvc-1"), Csi.ext4(), node.export("pvc-1", 1L << 30), Map.of());
    }

    private void assertRefused(Status.Code expected, Runnable call) throws Exception {
        List<Path> before;
        try (Stream<Path> files = Files.walk(node.kubelet)) {
            before = files.sorted().toList();
        }
        assertThat(code(call)).isEqualTo(expected);
        assertThat(mounter.calls()).isEmpty();
        assertThat(tools.commands()).isEmpty();
        assertThat(node.initiator.calls()).isEmpty();
        assertThat(Files.list(node.state)).isEmpty();
        try (Stream<Path> files = Files.walk(node.kubelet)) {
            assertThat(files.sorted().toList()).isEqualTo(before);
        }
    }

    private void assertStageRefused(Status.Code expected, Consumer<NodeStageVolumeRequest.Builder> change) throws Exception {
        NodeStageVolumeRequest.Builder request = good().toBuilder();
        change.accept(request);
        assertRefused(expected, () -> node.node.nodeStageVolume(request.build()));
    }

    private static Map<String, String> with(Map<String, String> context, String key, String value) {
        Map<String, String> out = new HashMap<>(context);
        out.put(key, value);
        return out;
    }

    @Test
    void stageRefusesBadIdentifiersPathsAndCapabilities() throws Exception {
        String k = node.kubelet.toString();
        for (String id : new String[] {"", "../../etc", "PVC-1", "pvc_1", "a".repeat(64), "pvc-1\n", "-pvc"}) {
            assertStageRefused(Status.Code.INVALID_ARGUMENT, r -> r.setVolumeId(id));
        }
        for (String path : new String[] {"", "relative", "/etc", k, k + "/../etc", k + "/a/../../etc", k + "/a//b",
            k + "/a b", k + "x/a"}) {
            assertStageRefused(Status.Code.INVALID_ARGUMENT, r -> r.setStagingTargetPath(path));
        }
        assertStageRefused(Status.Code.INVALID_ARGUMENT, NodeStageVolumeRequest.Builder::clearVolumeCapability);
        assertStageRefused(Status.Code.INVALID_ARGUMENT, r -> r.setVolumeCapability(Csi.fs("btrfs", Mode.SINGLE_NODE_WRITER)));
        assertStageRefused(Status.Code.INVALID_ARGUMENT,
                r -> r.setVolumeCapability(Csi.fs("ext4", Mode.SINGLE_NODE_WRITER, "errors=panic")));
        assertStageRefused(Status.Code.INVALID_ARGUMENT,
                r -> r.setVolumeCapability(Csi.fs("ext4", Mode.SINGLE_NODE_WRITER, "nouuid")));
        assertStageRefused(Status.Code.FAILED_PRECONDITION,
                r -> r.setVolumeCapability(Csi.fs("ext4", Mode.MULTI_NODE_MULTI_WRITER)));
    }

    @Test
    void stageRefusesBadContexts() throws Exception {
        Map<String, String> context = good().getPublishContextMap();
        for (String[] bad : new String[][] {
            {PublishContext.NQN, "nqn.2024-01.x,hostnqn=evil"}, {PublishContext.TRADDR, "storage.example"},
            {PublishContext.TRADDR, "10.0.0.1,nqn=x"}, {PublishContext.TRSVCID, "99999"},
            {PublishContext.TRANSPORT, "rdma"}, {PublishContext.CTRL_LOSS_TMO, "forever"},
            {PublishContext.CTRL_LOSS_TMO, "-1"}, {PublishContext.CTRL_LOSS_TMO, "3601"}}) {
            assertStageRefused(Status.Code.INVALID_ARGUMENT,
                    r -> r.clearPublishContext().putAllPublishContext(with(context, bad[0], bad[1])));
        }
        assertStageRefused(Status.Code.INVALID_ARGUMENT, NodeStageVolumeRequest.Builder::clearPublishContext);
        for (String mkfs : new String[] {"-F", "-E root_owner=0:0", "-m 0; reboot", "-d /etc"}) {
            assertStageRefused(Status.Code.INVALID_ARGUMENT, r -> r.putVolumeContext(VolumeContext.MKFS_OPTIONS, mkfs));
        }
    }

    @Test
    void anUnboundedCtrlLossTmoIsRefusedNamingTheKey() {
        var request = good().toBuilder().putPublishContext(PublishContext.CTRL_LOSS_TMO, "-1").build();
        assertThatThrownBy(() -> node.node.nodeStageVolume(request)).isInstanceOf(StatusRuntimeException.class)
                .hasMessageContaining("INVALID_ARGUMENT: publish_context.ctrlLossTmo: must be 0 to 3600 seconds");
    }

    @Test
    void theOtherCallsRefuseBadInputToo() throws Exception {
        Path staging = node.staging("pvc-1");
        Path target = node.target("pvc-1", "a");
        assertRefused(Status.Code.INVALID_ARGUMENT, () -> node.node.nodeUnstageVolume(Csi.unstage("../x", staging)));
        assertRefused(Status.Code.INVALID_ARGUMENT, () -> node.node.nodeUnstageVolume(
                Csi.unstage("pvc-1", Path.of("/etc"))));
        assertRefused(Status.Code.INVALID_ARGUMENT, () -> node.node.nodePublishVolume(
                Csi.publish("pvc-1", staging, Path.of("/etc/cron.d"), Csi.ext4(), false)));
        assertRefused(Status.Code.INVALID_ARGUMENT, () -> node.node.nodePublishVolume(
                Csi.publish("pvc-1", staging, target, Csi.ext4(), false).toBuilder().clearVolumeCapability().build()));
        assertRefused(Status.Code.INVALID_ARGUMENT, () -> node.node.nodePublishVolume(
                Csi.publish("pvc-1", staging, staging.resolve("inside"), Csi.ext4(), false)));
        assertRefused(Status.Code.INVALID_ARGUMENT, () -> node.node.nodeUnpublishVolume(
                Csi.unpublish("pvc-1", Path.of(node.kubelet + "/pods/../../../etc"))));
        assertRefused(Status.Code.INVALID_ARGUMENT, () -> node.node.nodeUnpublishVolume(Csi.unpublish("", target)));
        // no volume is ever staged at a path that breaks the rule: NOT_FOUND (the spec's code), nothing touched
        assertRefused(Status.Code.NOT_FOUND, () -> node.node.nodeGetVolumeStats(Csi.stats("pvc-1", Path.of("/"))));
        assertRefused(Status.Code.NOT_FOUND, () -> node.node.nodeExpandVolume(
                Csi.expand("pvc-1", Path.of("relative"), 1)));
        assertRefused(Status.Code.INVALID_ARGUMENT, () -> node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, -1)));
    }

    @Test
    void aSymlinkOutOfTheKubeletDirectoryIsRefusedBeforeAnythingIsTouched() throws Exception {
        Path outside = Files.createDirectories(node.root.resolve("outside"));
        Path pods = Files.createDirectories(node.kubelet.resolve("pods"));
        Files.createSymbolicLink(pods.resolve("evil"), outside);
        NodeStageVolumeRequest request = good().toBuilder()
                .setStagingTargetPath(pods.resolve("evil/globalmount").toString()).build();
        assertThat(code(() -> node.node.nodeStageVolume(request))).isEqualTo(Status.Code.INVALID_ARGUMENT);
        Files.createDirectories(outside.resolve("mount"));
        assertThat(code(() -> node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", pods.resolve("evil/mount")))))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-1", pods.resolve("evil/globalmount")))))
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(mounter.calls()).isEmpty();
        assertThat(outside.resolve("mount")).isDirectory();
        assertThat(Files.list(node.state)).isEmpty();
    }
}
