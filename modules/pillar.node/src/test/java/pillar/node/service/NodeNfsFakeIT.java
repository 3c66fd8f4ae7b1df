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

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.context.PublishContext;
import pillar.api.csi.v1.NodeGetVolumeStatsResponse;
import pillar.api.csi.v1.NodePublishVolumeRequest;
import pillar.api.csi.v1.VolumeCapability;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.api.csi.v1.VolumeUsage;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.node.mount.MountOptions;
import pillar.node.mount.NfsExport;
import pillar.node.sys.Errno;
import pillar.node.sys.FsStats;
import pillar.node.sys.Hangs;

/**
 * NFS volumes on the node over a real socket with the fakes: one nfs4 mount per stage (no NVMe, no
 * mkfs), bind mounts per pod, undo in order, crash-safe retries, the check of what got mounted,
 * Block refused, and stats and expand that answer from statfs without hanging on a dead server.
 */
class NodeNfsFakeIT {
    static final String SERVER = "10.77.0.1";
    static final String CLIENT = "10.77.1.2";
    final FakeMounter mounter = new FakeMounter();
    final FakeProcessRunner tools = new FakeProcessRunner();
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(mounter, tools, Duration.ofSeconds(5), Duration.ofMillis(500));

    static Map<String, String> nfs(String volume) {
        Map<String, String> c = new HashMap<>();
        c.put(PublishContext.PROTOCOL, PublishContext.PROTOCOL_NFS);
        c.put(PublishContext.NFS_SERVER, SERVER);
        c.put(PublishContext.NFS_EXPORT, "/tank/pillar/" + volume);
        c.put(PublishContext.NFS_CLIENT_ADDRESS, CLIENT);
        return c;
    }

    static VolumeCapability rwx(String... flags) {
        return Csi.fs("", Mode.MULTI_NODE_MULTI_WRITER, flags);
    }

    private Path stage(String volume, VolumeCapability capability) {
        Path staging = node.staging(volume);
        node.node.nodeStageVolume(Csi.stage(volume, staging, capability, nfs(volume), Map.of()));
        return staging;
    }

    private NodePublishVolumeRequest publish(String volume, Path staging, Path target, VolumeCapability cap, boolean ro) {
        return Csi.publish(volume, staging, target, cap, ro).toBuilder().putAllPublishContext(nfs(volume)).build();
    }

    @Test
    void stageMountsTheExportOnceWithoutNvmeOrMkfsAndRepeatsAsOk() throws Exception {
        Path staging = stage("pvc-1", rwx("noatime"));
        stage("pvc-1", rwx("noatime"));
        assertThat(mounter.countAt(staging)).isEqualTo(1);
        assertThat(mounter.calls()).containsExactly("mount 10.77.0.1:/tank/pillar/pvc-1 " + staging + " nfs4 [noatime]");
        assertThat(mounter.find(staging)).get().satisfies(e -> {
            assertThat(e.fsType()).isEqualTo("nfs4");
            assertThat(e.source()).isEqualTo("10.77.0.1:/tank/pillar/pvc-1");
        });
        assertThat(node.initiator.calls()).isEmpty();
        assertThat(tools.commands()).isEmpty();
        assertThat(Files.readString(node.recordFile("pvc-1"))).contains("phase=staged\n", "fs-type=nfs4\n",
                "nfs-server=10.77.0.1\n", "nfs-export=/tank/pillar/pvc-1\n", "nfs-client=10.77.1.2\n")
                .doesNotContain("nqn=");

        assertThat(code(() -> stage("pvc-1", rwx()))).isEqualTo(Status.Code.ALREADY_EXISTS);
        Map<String, String> other = nfs("pvc-1");
        other.put(PublishContext.NFS_EXPORT, "/tank/pillar/pvc-2");
        assertThat(code(() -> node.node.nodeStageVolume(Csi.stage("pvc-1", staging, rwx("noatime"), other, Map.of()))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(mounter.countAt(staging)).isEqualTo(1);
    }

    @Test
    void aTlsContextMountsWithXprtsecRecordsItAndANodeWithoutTlshdIsAPreconditionThatLeavesNoStage() throws Exception {
        Map<String, String> tls = nfs("pvc-1");
        tls.put(PublishContext.TLS, PublishContext.TLS_13);
        Path staging = node.staging("pvc-1");
        mounter.refuseTlsMounts(pillar.node.sys.Errno.ESRCH);

        assertThatThrownBy(() -> node.node.nodeStageVolume(Csi.stage("pvc-1", staging, rwx(), tls, Map.of())))
                .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION))
                .hasMessageContaining("run tlshd");
        assertThat(mounter.table()).isEmpty();

        mounter.refuseTlsMounts(null);
        node.node.nodeStageVolume(Csi.stage("pvc-1", staging, rwx(), tls, Map.of()));
        assertThat(mounter.find(staging)).get().satisfies(e -> assertThat(e.superOptions()).contains("xprtsec=tls"));
        assertThat(Files.readString(node.recordFile("pvc-1"))).contains("nfs-client=10.77.1.2\ntls=tls1.3\n");
        assertThat(code(() -> stage("pvc-1", rwx()))).as("the same volume asked in plaintext").isEqualTo(Status.Code.FAILED_PRECONDITION);
    }

    @Test
    void publishBindsPerPodReadOnlyWhenAskedAndUnpublishUnstageUndoIt() throws Exception {
        VolumeCapability cap = rwx();
        Path staging = stage("pvc-1", cap);
        Path a = node.target("pvc-1", "pod-a");
        Path b = node.target("pvc-1", "pod-b");
        node.node.nodePublishVolume(publish("pvc-1", staging, a, cap, false));
        node.node.nodePublishVolume(publish("pvc-1", staging, a, cap, false));
        node.node.nodePublishVolume(publish("pvc-1", staging, b, cap, true));
        assertThat(mounter.countAt(a)).isEqualTo(1);
        assertThat(mounter.find(a)).get().satisfies(e -> {
            assertThat(e.fsType()).isEqualTo("nfs4");
            assertThat(e.readOnly()).isFalse();
        });
        assertThat(mounter.find(b)).get().satisfies(e -> assertThat(e.readOnly()).isTrue());

        assertThat(code(() -> node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", a));
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", b));
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", b));
        assertThat(Files.exists(a)).isFalse();
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        assertThat(mounter.table()).isEmpty();
        assertThat(Files.exists(node.recordFile("pvc-1"))).isFalse();
        assertThat(node.initiator.calls()).isEmpty();
    }

    @Test
    void aReaderOnlyModeMountsTheStagingReadOnly() {
        Path staging = stage("pvc-1", Csi.fs("nfs", Mode.MULTI_NODE_READER_ONLY));
        assertThat(mounter.find(staging)).get().satisfies(e -> assertThat(e.readOnly()).isTrue());
    }

    @Test
    void badInputIsInvalidArgumentAndChangesNothing() {
        Path staging = node.staging("pvc-1");
        Map<String, String> hostName = nfs("pvc-1");
        hostName.put(PublishContext.NFS_SERVER, "nfs.example.com");
        Map<String, String> dots = nfs("pvc-1");
        dots.put(PublishContext.NFS_EXPORT, "/tank/../etc");
        Map<String, String> protocol = nfs("pvc-1");
        protocol.put(PublishContext.PROTOCOL, "smb");
        for (Map<String, String> context : List.of(hostName, dots, protocol)) {
            assertThat(code(() -> node.node.nodeStageVolume(Csi.stage("pvc-1", staging, rwx(), context, Map.of()))))
                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
        }
        for (VolumeCapability cap : List.of(Csi.block(Mode.MULTI_NODE_MULTI_WRITER),
                Csi.fs("ext4", Mode.MULTI_NODE_MULTI_WRITER), rwx("soft"))) {
            assertThat(code(() -> node.node.nodeStageVolume(Csi.stage("pvc-1", staging, cap, nfs("pvc-1"), Map.of()))))
                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
        }
        assertThat(mounter.calls()).isEmpty();
        assertThat(Files.exists(node.recordFile("pvc-1"))).isFalse();
    }

    @Test
    void aStagingPathHoldingAnotherMountIsRefused() throws Exception {
        Path staging = node.staging("pvc-1");
        Files.createDirectories(staging);
        mounter.mountNfs(new NfsExport(SERVER, "/tank/pillar/other", CLIENT), staging, MountOptions.NONE);
        assertThat(code(() -> stage("pvc-1", rwx()))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(mounter.countAt(staging)).isEqualTo(1);
        assertThat(mounter.find(staging).orElseThrow().source()).isEqualTo("10.77.0.1:/tank/pillar/other");
    }

    @Test
    void aMountThatIsNotTheExportIsUndoneAndRefused() {
        mounter.listNfsAs("10.77.0.1:/tank/pillar/pvc-1", "10.77.0.1:/tank/pillar");
        assertThat(code(() -> stage("pvc-1", rwx()))).isEqualTo(Status.Code.INTERNAL);
        assertThat(mounter.table()).isEmpty();
        assertThat(code(() -> node.node.nodePublishVolume(publish("pvc-1", node.staging("pvc-1"),
                node.target("pvc-1", "pod-a"), rwx(), false)))).isEqualTo(Status.Code.FAILED_PRECONDITION);
    }

    @Test
    void aStageThatFailedAtTheMountFinishesOnRetryOrUnstagesCleanly() throws Exception {
        mounter.refuseNfs("10.77.0.1:/tank/pillar/pvc-1", Errno.EACCES);
        assertThat(code(() -> stage("pvc-1", rwx()))).isNotEqualTo(Status.Code.OK);
        assertThat(Files.readString(node.recordFile("pvc-1"))).contains("phase=attaching\n");
        mounter.acceptNfs("10.77.0.1:/tank/pillar/pvc-1");
        Path staging = stage("pvc-1", rwx());
        assertThat(mounter.countAt(staging)).isEqualTo(1);
        assertThat(Files.readString(node.recordFile("pvc-1"))).contains("phase=staged\n");

        // a crash after the mount, before the record said staged: the retry keeps the mount
        Files.writeString(node.recordFile("pvc-1"), Files.readString(node.recordFile("pvc-1"))
                .replace("phase=staged", "phase=attaching"));
        node.restart();
        stage("pvc-1", rwx());
        assertThat(mounter.countAt(staging)).isEqualTo(1);
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        assertThat(mounter.table()).isEmpty();
    }

    @Test
    void statsAndExpandAnswerFromStatfs() {
        Path staging = stage("pvc-1", rwx());
        mounter.stats(new FsStats(10L << 30, 6L << 30, 4L << 30, 1000, 900, 100));
        NodeGetVolumeStatsResponse stats = node.node.nodeGetVolumeStats(Csi.stats("pvc-1", staging));
        assertThat(stats.getVolumeCondition().getAbnormal()).isFalse();
        assertThat(stats.getUsageList()).anySatisfy(u -> {
            assertThat(u.getUnit()).isEqualTo(VolumeUsage.Unit.BYTES);
            assertThat(u.getTotal()).isEqualTo(10L << 30);
            assertThat(u.getUsed()).isEqualTo(4L << 30);
        }).anySatisfy(u -> {
            assertThat(u.getUnit()).isEqualTo(VolumeUsage.Unit.INODES);
            assertThat(u.getAvailable()).isEqualTo(900);
        });
        assertThat(node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, 5L << 30)).getCapacityBytes())
                .isEqualTo(10L << 30);
        // kubelet sends the PV's capability: nfs and a multi-node mode are fine, Block is not this volume
        assertThat(node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, 5L << 30).toBuilder()
                .setVolumeCapability(rwx()).build()).getCapacityBytes()).isEqualTo(10L << 30);
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-1", staging, 5L << 30).toBuilder()
                .setVolumeCapability(Csi.block(Mode.MULTI_NODE_MULTI_WRITER)).build()))).isEqualTo(Status.Code.INVALID_ARGUMENT);
    }

    @Test
    void aServerThatDoesNotAnswerIsAnAbnormalConditionWithinTheDeadline() throws Exception {
        Path staging = stage("pvc-1", rwx());
        Hangs.Hang hang = mounter.hangStat(staging);
        try {
            for (int i = 0; i < 2; i++) { // the second call finds the first still stuck and answers at once
                long started = System.nanoTime();
                NodeGetVolumeStatsResponse stats = node.node.nodeGetVolumeStats(Csi.stats("pvc-1", staging));
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
                assertThat(stats.getVolumeCondition().getAbnormal()).isTrue();
                assertThat(stats.getVolumeCondition().getMessage()).contains("NFS server 10.77.0.1", "does not answer");
                assertThat(stats.getUsageList()).isEmpty();
            }
        } finally {
            hang.release();
        }
        Hangs.awaitNothingStuck(node.kernel, Duration.ofSeconds(10));
        assertThat(node.node.nodeGetVolumeStats(Csi.stats("pvc-1", staging)).getVolumeCondition().getAbnormal()).isFalse();
    }

    @Test
    void theMetersCountNfsStagesByProtocolWithoutVolumeNames() {
        assertThat(node.scrape()).contains("pillar_node_staged_volumes{protocol=\"nfs\"} 0.0\n",
                "pillar_node_staged_volumes{protocol=\"nvme-tcp\"} 0.0\n");
        VolumeCapability cap = rwx();
        Path staging = stage("pvc-1", cap);
        node.node.nodePublishVolume(publish("pvc-1", staging, node.target("pvc-1", "a"), cap, false));
        Path nvme = node.staging("pvc-2");
        node.node.nodeStageVolume(Csi.stage("pvc-2", nvme, Csi.ext4(), node.export("pvc-2", NodeFixture.GIB), Map.of()));
        String text = node.scrape();
        assertThat(text).contains("pillar_node_staged_volumes{protocol=\"nfs\"} 1.0\n",
                        "pillar_node_staged_volumes{protocol=\"nvme-tcp\"} 1.0\n", "pillar_node_stage_records 2.0\n",
                        "pillar_node_connected_controllers 1.0\n", "pillar_node_mounts{kind=\"staging\"} 2.0\n",
                        "pillar_node_mounts{kind=\"publish\"} 1.0\n")
                .doesNotContain("pvc-", SERVER, "/tank");
        node.node.nodeUnpublishVolume(Csi.unpublish("pvc-1", node.target("pvc-1", "a")));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        assertThat(node.scrape()).contains("pillar_node_staged_volumes{protocol=\"nfs\"} 0.0\n",
                "pillar_node_staged_volumes{protocol=\"nvme-tcp\"} 1.0\n", "pillar_node_connected_controllers 1.0\n");
    }

    @Test
    void publishRefusesAStagingPathThatNoLongerHoldsTheExport() {
        VolumeCapability cap = rwx();
        Path staging = stage("pvc-1", cap);
        mounter.unmount(staging);
        mounter.mountNfs(new NfsExport(SERVER, "/tank/pillar/other", CLIENT), staging, MountOptions.NONE);
        Path target = node.target("pvc-1", "a");
        assertThat(code(() -> node.node.nodePublishVolume(publish("pvc-1", staging, target, cap, false))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(mounter.find(target)).isEmpty();
    }

    @Test
    void anNvmeVolumeIsNotExpandedOrPublishedAsAnNfsOne() {
        Path staging = node.staging("pvc-2");
        node.node.nodeStageVolume(Csi.stage("pvc-2", staging, Csi.ext4(), node.export("pvc-2", NodeFixture.GIB), Map.of()));
        assertThat(code(() -> node.node.nodeExpandVolume(Csi.expand("pvc-2", staging, 0).toBuilder()
                .setVolumeCapability(Csi.fs("nfs", Mode.SINGLE_NODE_WRITER)).build()))).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(code(() -> node.node.nodePublishVolume(publish("pvc-2", staging, node.target("pvc-2", "a"), rwx(), false))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(code(() -> stage("pvc-2", rwx()))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(mounter.countAt(staging)).isEqualTo(1);
    }
}
