package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.sandbox.Volumes.MIB;
import static pillar.sandbox.Volumes.assertCode;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

import io.grpc.Status.Code;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.Executable;
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.NodeExpandVolumeRequest;
import pillar.api.csi.v1.NodeGetCapabilitiesRequest;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGetInfoResponse;
import pillar.api.csi.v1.NodeGetVolumeStatsRequest;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.NodeServiceCapability.RPC.Type;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeUnpublishVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.runtime.server.Fabric;

/**
 * The node's half of {@link CsiConformance}, on the node's own socket: each check names the
 * csi-sanity case it mirrors (kubernetes-csi/csi-test pkg/sanity/node.go, "Node Service ..."),
 * and asserts what the calls leave in the kernel (one mount, one controller, nothing after unstage).
 * Sanity's made-up IDs are its default generator's ({@link CsiConformance#fakeVolumeId()}).
 */
final class NodeConformance {
    private final KubeletNode node;
    private final Path hostNqnFile;
    private final Supplier<Volume> volume;
    private final Supplier<Map<String, String>> publishContext;
    private final VolumeCapability capability;
    private Path staging;
    private Path target;

    NodeConformance(KubeletNode node, Path hostNqnFile, Supplier<Volume> volume, Supplier<Map<String, String>> publishContext,
                    VolumeCapability capability) {
        this.node = node;
        this.hostNqnFile = hostNqnFile;
        this.volume = volume;
        this.publishContext = publishContext;
        this.capability = capability;
    }

    /** NodeGetCapabilities, NodeGetInfo, the argument checks, NodeStage, NodePublish and NodeGetVolumeStats. */
    List<DynamicTest> stageAndPublish() {
        return List.of(
                sanity("NodeGetCapabilities should return appropriate capabilities", "stage, stats, expand, condition", () ->
                        assertThat(node.stub().nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance())
                                .getCapabilitiesList()).extracting(c -> c.getRpc().getType())
                                .doesNotContain(Type.UNRECOGNIZED)
                                .contains(Type.STAGE_UNSTAGE_VOLUME, Type.GET_VOLUME_STATS, Type.EXPAND_VOLUME, Type.VOLUME_CONDITION)),
                sanity("NodeGetInfo should return appropriate values", "the host NQN, pillar-csi's topology segment", () -> {
                    NodeGetInfoResponse info = node.stub().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
                    assertThat(info.getNodeId()).isEqualTo(Files.readString(hostNqnFile).strip());
                    assertThat(info.getMaxVolumesPerNode()).isNotNegative();
                    assertThat(info.getAccessibleTopology()).isEqualTo(Fabric.segment());
                }),
                sanity("NodePublishVolume should fail when no volume id / no target path / no volume capability is provided",
                        "INVALID_ARGUMENT", () -> {
                    target = node.targetPath(UUID.randomUUID().toString(), volume.get().getVolumeId(), false);
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodePublishVolume(NodePublishVolumeRequest.getDefaultInstance()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                            .setVolumeId(CsiConformance.fakeVolumeId()).build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodePublishVolume(NodePublishVolumeRequest.newBuilder()
                            .setVolumeId(CsiConformance.fakeVolumeId()).setTargetPath(target.toString()).build()));
                }),
                sanity("NodeUnpublishVolume should fail when no volume id / no target path is provided", "INVALID_ARGUMENT", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeUnpublishVolume(NodeUnpublishVolumeRequest.getDefaultInstance()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeUnpublishVolume(NodeUnpublishVolumeRequest.newBuilder()
                            .setVolumeId(CsiConformance.fakeVolumeId()).build()));
                }),
                sanity("NodeStageVolume should fail when no volume id / no staging target path / no volume capability is provided",
                        "INVALID_ARGUMENT, nothing staged", () -> {
                    staging = node.stagingPath(volume.get().getVolumeId(), volume.get().getVolumeId(), false);
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeStageVolume(stage().clearVolumeId().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeStageVolume(stage()
                            .setVolumeId(CsiConformance.fakeVolumeId()).clearStagingTargetPath().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeStageVolume(stage().clearVolumeCapability().build()));
                    assertThat(KernelObjects.read(List.of(node.kubeletDir())).keysStartingWith("mount " + staging)).isEmpty();
                }),
                sanity("NodeUnstageVolume should fail when no volume id / no staging target path is provided", "INVALID_ARGUMENT", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder()
                            .setStagingTargetPath(staging.toString()).build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeUnstageVolume(NodeUnstageVolumeRequest.newBuilder()
                            .setVolumeId(CsiConformance.fakeVolumeId()).build()));
                }),
                sanity("should work / should be idempotent: NodeStageVolume", "twice OK with one mount", () -> {
                    node.stub().nodeStageVolume(stage().build());
                    node.stub().nodeStageVolume(stage().build());
                    assertThat(KernelObjects.read(List.of(node.kubeletDir())).keysStartingWith("mount " + staging)).hasSize(1);
                }),
                DynamicTest.dynamicTest("NodePublishVolume without a staging path: FAILED_PRECONDITION (the spec's"
                        + " \"staging target path not set\"); the target is not made", () -> {
                    assertCode(Code.FAILED_PRECONDITION, () -> node.stub().nodePublishVolume(publish().clearStagingTargetPath().build()));
                    assertThat(target).doesNotExist();
                }),
                sanity("should work / should be idempotent: NodePublishVolume", "twice OK with one mount", () -> {
                    node.stub().nodePublishVolume(publish().build());
                    node.stub().nodePublishVolume(publish().build());
                    assertThat(KernelObjects.read(List.of(node.kubeletDir())).keysStartingWith("mount " + target)).hasSize(1);
                }),
                sanity("NodeGetVolumeStats should fail when no volume id / no volume path is provided", "INVALID_ARGUMENT", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder()
                            .setVolumePath("some/path").build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder()
                            .setVolumeId(CsiConformance.fakeVolumeId()).build()));
                }),
                sanity("NodeGetVolumeStats should fail when volume is not found", "NOT_FOUND before the path's shape", () ->
                        assertCode(Code.NOT_FOUND, () -> node.stub().nodeGetVolumeStats(NodeGetVolumeStatsRequest.newBuilder()
                                .setVolumeId(CsiConformance.fakeVolumeId()).setVolumePath("some/path").build()))),
                sanity("NodeGetVolumeStats should fail when volume does not exist on the specified path", "NOT_FOUND", () -> {
                    assertCode(Code.NOT_FOUND, () -> node.stub().nodeGetVolumeStats(stats().setVolumePath("some/path").build()));
                    assertCode(Code.NOT_FOUND, () -> node.stub().nodeGetVolumeStats(stats()
                            .setVolumePath(node.kubeletDir().resolve("pods/" + UUID.randomUUID() + "/no-such-volume").toString()).build()));
                }),
                sanity("should work: NodeGetVolumeStats", "bytes and inodes at the target, a healthy condition", () -> {
                    var usage = node.stub().nodeGetVolumeStats(stats().build());
                    assertThat(usage.getUsageList()).hasSize(2).allSatisfy(u -> assertThat(u.getTotal()).isPositive());
                    assertThat(usage.getVolumeCondition().getAbnormal()).isFalse();
                }));
    }

    /** NodeExpandVolume (after ControllerExpandVolume), NodeUnpublishVolume and NodeUnstageVolume. */
    List<DynamicTest> expandAndUndo() {
        return List.of(
                sanity("NodeExpandVolume should fail when no volume id / no volume path is provided", "INVALID_ARGUMENT", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeExpandVolume(expand().clearVolumeId().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeExpandVolume(expand().clearVolumePath().build()));
                }),
                sanity("NodeExpandVolume should fail when volume is not found", "NOT_FOUND before the path's shape", () ->
                        assertCode(Code.NOT_FOUND, () -> node.stub().nodeExpandVolume(NodeExpandVolumeRequest.newBuilder()
                                .setVolumeId(CsiConformance.fakeVolumeId()).setVolumePath("some/path").build()))),
                sanity("NodeExpandVolume should work if node-expand is called after node-publish", "twice to one size OK", () -> {
                    assertThat(node.stub().nodeExpandVolume(expand().build()).getCapacityBytes()).isGreaterThanOrEqualTo(448 * MIB);
                    assertThat(node.stub().nodeExpandVolume(expand().build()).getCapacityBytes()).isGreaterThanOrEqualTo(448 * MIB);
                }),
                sanity("NodeUnpublishVolume should remove target path", "twice OK, the mount and the target gone", () -> {
                    node.stub().nodeUnpublishVolume(unpublish().build());
                    node.stub().nodeUnpublishVolume(unpublish().build());
                    assertThat(target).doesNotExist();
                    assertThat(KernelObjects.read(List.of(node.kubeletDir())).keysStartingWith("mount " + target)).isEmpty();
                }),
                sanity("should work / should be idempotent: NodeUnstageVolume", "twice OK, unmounted and disconnected; an unknown"
                        + " volume OK", () -> {
                    node.stub().nodeUnstageVolume(unstage().build());
                    node.stub().nodeUnstageVolume(unstage().build());
                    String unknown = CsiConformance.fakeVolumeId();
                    node.stub().nodeUnstageVolume(unstage().setVolumeId(unknown)
                            .setStagingTargetPath(node.stagingPath(unknown, unknown, false).toString()).build());
                    node.stub().nodeUnpublishVolume(unpublish().setVolumeId(unknown)
                            .setTargetPath(node.targetPath(UUID.randomUUID().toString(), unknown, false).toString()).build());
                    KernelObjects now = KernelObjects.read(List.of(node.kubeletDir()));
                    assertThat(now.keysStartingWith("mount ")).isEmpty();
                    assertThat(now.keysStartingWith("nvme controller ")).isEmpty();
                }));
    }

    /** A check named after its upstream case in csi-sanity's "Node Service", then what pillar-csi adds. */
    private static DynamicTest sanity(String upstream, String pillar, Executable body) {
        return DynamicTest.dynamicTest("sanity: \"Node Service " + upstream + "\": " + pillar, body);
    }

    private NodeStageVolumeRequest.Builder stage() {
        return NodeStageVolumeRequest.newBuilder().setVolumeId(volume.get().getVolumeId())
                .putAllPublishContext(publishContext.get()).setStagingTargetPath(staging.toString())
                .setVolumeCapability(capability).putAllVolumeContext(volume.get().getVolumeContextMap());
    }

    private NodePublishVolumeRequest.Builder publish() {
        return NodePublishVolumeRequest.newBuilder().setVolumeId(volume.get().getVolumeId())
                .putAllPublishContext(publishContext.get()).setStagingTargetPath(staging.toString())
                .setTargetPath(target.toString()).setVolumeCapability(capability)
                .putAllVolumeContext(volume.get().getVolumeContextMap());
    }

    private NodeGetVolumeStatsRequest.Builder stats() {
        return NodeGetVolumeStatsRequest.newBuilder().setVolumeId(volume.get().getVolumeId()).setVolumePath(target.toString());
    }

    private NodeExpandVolumeRequest.Builder expand() {
        return NodeExpandVolumeRequest.newBuilder().setVolumeId(volume.get().getVolumeId()).setVolumePath(target.toString())
                .setVolumeCapability(capability).setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(448 * MIB));
    }

    private NodeUnpublishVolumeRequest.Builder unpublish() {
        return NodeUnpublishVolumeRequest.newBuilder().setVolumeId(volume.get().getVolumeId()).setTargetPath(target.toString());
    }

    private NodeUnstageVolumeRequest.Builder unstage() {
        return NodeUnstageVolumeRequest.newBuilder().setVolumeId(volume.get().getVolumeId())
                .setStagingTargetPath(staging.toString());
    }
}
