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
import pillar.api.csi.v1.CapacityRange;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.GetPluginInfoRequest;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.NodeExpandVolumeRequest;
import pillar.api.csi.v1.NodeGetCapabilitiesRequest;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGetVolumeStatsRequest;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.NodeServiceCapability.RPC.Type;
import pillar.api.csi.v1.NodeStageVolumeRequest;
import pillar.api.csi.v1.NodeUnpublishVolumeRequest;
import pillar.api.csi.v1.NodeUnstageVolumeRequest;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.csi.v1.ProbeRequest;
import pillar.api.csi.v1.Volume;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.server.Driver;
import pillar.api.server.Fabric;

/**
 * The node's half of {@link CsiConformance} (and the Identity service, on the node's socket): each
 * call's required arguments, idempotency, NOT_FOUND for a path that is not a volume, and what the
 * calls leave in the kernel (one mount, one controller, nothing after unstage).
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

    /** Identity, NodeGetCapabilities, NodeGetInfo, NodeStage, NodePublish and NodeGetVolumeStats. */
    List<DynamicTest> stageAndPublish() {
        return List.of(
                DynamicTest.dynamicTest("Identity on the node's socket: its name and version, ready, topology but no controller", () -> {
                    IdentityGrpc.IdentityBlockingStub identity = IdentityGrpc.newBlockingStub(node.channel());
                    assertThat(identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName()).isEqualTo(Driver.NAME);
                    assertThat(identity.probe(ProbeRequest.getDefaultInstance()).getReady().getValue()).isTrue();
                    assertThat(identity.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance())
                            .getCapabilitiesList()).extracting(c -> c.getService().getType())
                            .containsExactly(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS);
                }),
                DynamicTest.dynamicTest("NodeGetCapabilities and NodeGetInfo: stage, stats, expand, condition; the host NQN", () -> {
                    assertThat(node.stub().nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance())
                            .getCapabilitiesList()).extracting(c -> c.getRpc().getType()).contains(Type.STAGE_UNSTAGE_VOLUME,
                            Type.GET_VOLUME_STATS, Type.EXPAND_VOLUME, Type.VOLUME_CONDITION);
                    assertThat(node.nodeId()).isEqualTo(Files.readString(hostNqnFile).strip());
                    assertThat(node.stub().nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getAccessibleTopology())
                            .isEqualTo(Fabric.segment());
                }),
                DynamicTest.dynamicTest("NodeStageVolume: arguments required; twice OK with one mount", () -> {
                    staging = node.stagingPath(volume.get().getVolumeId(), volume.get().getVolumeId(), false);
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeStageVolume(stage().clearVolumeId().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeStageVolume(stage().clearStagingTargetPath().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeStageVolume(stage().clearVolumeCapability().build()));
                    node.stub().nodeStageVolume(stage().build());
                    node.stub().nodeStageVolume(stage().build());
                    assertThat(KernelObjects.read(List.of(node.kubeletDir())).keysStartingWith("mount " + staging)).hasSize(1);
                }),
                DynamicTest.dynamicTest("NodePublishVolume: arguments required, no staging path FAILED_PRECONDITION; twice OK", () -> {
                    target = node.targetPath(UUID.randomUUID().toString(), volume.get().getVolumeId(), false);
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodePublishVolume(publish().clearVolumeId().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodePublishVolume(publish().clearTargetPath().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodePublishVolume(publish().clearVolumeCapability().build()));
                    assertCode(Code.FAILED_PRECONDITION, () -> node.stub().nodePublishVolume(publish().clearStagingTargetPath().build()));
                    node.stub().nodePublishVolume(publish().build());
                    node.stub().nodePublishVolume(publish().build());
                    assertThat(KernelObjects.read(List.of(node.kubeletDir())).keysStartingWith("mount " + target)).hasSize(1);
                }),
                DynamicTest.dynamicTest("NodeGetVolumeStats: arguments required, a path that is no volume NOT_FOUND, the volume's usage", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeGetVolumeStats(stats().clearVolumeId().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeGetVolumeStats(stats().clearVolumePath().build()));
                    assertCode(Code.NOT_FOUND, () -> node.stub().nodeGetVolumeStats(stats()
                            .setVolumePath(node.kubeletDir().resolve("pods/" + UUID.randomUUID() + "/no-such-volume").toString()).build()));
                    var usage = node.stub().nodeGetVolumeStats(stats().build());
                    assertThat(usage.getUsageList()).hasSize(2).allSatisfy(u -> assertThat(u.getTotal()).isPositive());
                    assertThat(usage.getVolumeCondition().getAbnormal()).isFalse();
                }));
    }

    /** NodeExpandVolume, NodeUnpublishVolume and NodeUnstageVolume. */
    List<DynamicTest> expandAndUndo() {
        return List.of(
                DynamicTest.dynamicTest("NodeExpandVolume: arguments required; twice to one size OK", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeExpandVolume(expand().clearVolumeId().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeExpandVolume(expand().clearVolumePath().build()));
                    assertThat(node.stub().nodeExpandVolume(expand().build()).getCapacityBytes()).isGreaterThanOrEqualTo(448 * MIB);
                    assertThat(node.stub().nodeExpandVolume(expand().build()).getCapacityBytes()).isGreaterThanOrEqualTo(448 * MIB);
                }),
                DynamicTest.dynamicTest("NodeUnpublishVolume: arguments required; twice OK, the mount and the target gone", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeUnpublishVolume(unpublish().clearVolumeId().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeUnpublishVolume(unpublish().clearTargetPath().build()));
                    node.stub().nodeUnpublishVolume(unpublish().build());
                    node.stub().nodeUnpublishVolume(unpublish().build());
                    assertThat(target).doesNotExist();
                }),
                DynamicTest.dynamicTest("NodeUnstageVolume: arguments required; twice OK, unmounted and disconnected", () -> {
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeUnstageVolume(unstage().clearVolumeId().build()));
                    assertCode(Code.INVALID_ARGUMENT, () -> node.stub().nodeUnstageVolume(unstage().clearStagingTargetPath().build()));
                    node.stub().nodeUnstageVolume(unstage().build());
                    node.stub().nodeUnstageVolume(unstage().build());
                    KernelObjects now = KernelObjects.read(List.of(node.kubeletDir()));
                    assertThat(now.keysStartingWith("mount ")).isEmpty();
                    assertThat(now.keysStartingWith("nvme controller ")).isEmpty();
                }));
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
        return NodeGetVolumeStatsRequest.newBuilder().setVolumeId(volume.get().getVolumeId()).setVolumePath(target.toString())
                .setStagingTargetPath(staging.toString());
    }

    private NodeExpandVolumeRequest.Builder expand() {
        return NodeExpandVolumeRequest.newBuilder().setVolumeId(volume.get().getVolumeId()).setVolumePath(target.toString())
                .setStagingTargetPath(staging.toString()).setVolumeCapability(capability)
                .setCapacityRange(CapacityRange.newBuilder().setRequiredBytes(448 * MIB));
    }

    private NodeUnpublishVolumeRequest.Builder unpublish() {
        return NodeUnpublishVolumeRequest.newBuilder().setVolumeId(volume.get().getVolumeId()).setTargetPath(target.toString());
    }

    private NodeUnstageVolumeRequest.Builder unstage() {
        return NodeUnstageVolumeRequest.newBuilder().setVolumeId(volume.get().getVolumeId())
                .setStagingTargetPath(staging.toString());
    }
}
