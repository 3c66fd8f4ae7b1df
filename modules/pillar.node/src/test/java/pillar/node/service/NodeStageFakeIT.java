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

import pillar.api.context.VolumeContext;
import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.mount.FakeMounter;
import pillar.node.stage.StageRecordFormat;

/**
 * NodeStageVolume and NodeUnstageVolume over a real socket, with the fake initiator, mounter and
 * tools: format only blank devices, converge on retries (one mkfs, one mount, one controller), the
 * record written before the host is touched, and the spec's codes for incompatible repeats.
 */
class NodeStageFakeIT {
    final FakeMounter mounter = new FakeMounter();
    final FakeProcessRunner tools = new FakeProcessRunner();
    @RegisterExtension
    final NodeFixture node = NodeFixture.fake(mounter, tools, Duration.ofSeconds(5));

    @Test
    void stagesABlankVolumeOnceAndRepeatsAsOk() throws Exception {
        Map<String, String> context = node.export("pvc-1", GIB);
        Path staging = node.staging("pvc-1");
        var request = Csi.stage("pvc-1", staging, Csi.fs("xfs", Mode.SINGLE_NODE_MULTI_WRITER, "noatime"), context,
                Map.of(VolumeContext.MKFS_OPTIONS, "-K"));
        node.node.nodeStageVolume(request);
        node.node.nodeStageVolume(request);

        assertThat(tools.count("mkfs.xfs")).isEqualTo(1);
        assertThat(tools.commands()).anySatisfy(c -> assertThat(c.argv()).containsExactly("mkfs.xfs", "-q", "-K",
                node.root.resolve("dev/nvme0n1").toString()));
        assertThat(mounter.countAt(staging)).isEqualTo(1);
        assertThat(mounter.find(staging)).get().satisfies(e -> {
            assertThat(e.fsType()).isEqualTo("xfs");
            assertThat(e.source()).isEqualTo(node.root.resolve("dev/nvme0n1").toString());
        });
        assertThat(node.initiator.count("connect")).isEqualTo(1); // the repeat found everything in place
        assertThat(Files.list(node.root.resolve("sys/class/nvme"))).hasSize(1);
        String record = Files.readString(node.recordFile("pvc-1"));
        assertThat(record).contains("phase=staged", "fs-type=xfs", "mount-flags=noatime", "controller=nvme0",
                "device=nvme0n1", "nqn=nqn.2024-01.io.pillar-csi:pvc-1", "ctrl-loss-tmo=30");
        assertThat(StageRecordFormat.parse(record, "x").stagingPath()).isEqualTo(staging);
    }

    @Test
    void writeCommandsToANamespaceStayWithinWhatTheTargetAccepts() throws Exception {
        Map<String, String> zvol = node.export("pvc-z", GIB);
        node.initiator.optimalWriteSize(NodeFixture.nqn("pvc-z"), 32L << 20); // what nvmet reports for a zvol
        Map<String, String> lv = node.export("pvc-l", GIB);
        node.node.nodeStageVolume(Csi.stage("pvc-z", node.staging("pvc-z"), Csi.block(Mode.SINGLE_NODE_WRITER), zvol, Map.of()));
        node.node.nodeStageVolume(Csi.stage("pvc-l", node.staging("pvc-l"), Csi.block(Mode.SINGLE_NODE_WRITER), lv, Map.of()));

        Path blocks = node.root.resolve("sys/block");
        assertThat(Files.readString(blocks.resolve("nvme0n1/queue/max_sectors_kb")).strip()).isEqualTo("4096");
        assertThat(Files.readString(blocks.resolve("nvme0c0n1/queue/max_sectors_kb")).strip()).isEqualTo("4096");
        assertThat(Files.readString(blocks.resolve("nvme1n1/queue/max_sectors_kb")).strip())
                .as("a lower limit is left as the kernel set it").isEqualTo("1280");
        assertThat(Files.readString(blocks.resolve("nvme1c1n1/queue/max_sectors_kb")).strip()).isEqualTo("1280");
    }

    @Test
    void aFormattedDeviceIsMountedAsItIsAndAForeignOneIsRefused() {
        node.node.nodeStageVolume(Csi.stage("pvc-1", node.staging("pvc-1"), Csi.ext4(), node.export("pvc-1", GIB), Map.of()));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", node.staging("pvc-1")));
        node.node.nodeStageVolume(Csi.stage("pvc-1", node.staging("pvc-1"), Csi.ext4(), node.export("pvc-1", GIB), Map.of()));
        assertThat(tools.count("mkfs.ext4")).isEqualTo(1);
        // the blank device was formatted to its size; the formatted one (a restore may be larger than its
        // source's filesystem) is grown to its device once mounted
        assertThat(tools.count("resize2fs")).isEqualTo(1);

        Map<String, String> context = node.export("pvc-2", GIB);
        tools.formatted(node.root.resolve("backing/pvc-2.img"), "ext4");
        assertThat(code(() -> node.node.nodeStageVolume(
                Csi.stage("pvc-2", node.staging("pvc-2"), Csi.fs("xfs", Mode.SINGLE_NODE_WRITER), context, Map.of()))))
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(tools.count("mkfs.xfs")).isZero();
        assertThat(mounter.countAt(node.staging("pvc-2"))).isZero();
    }

    @Test
    void aBlockVolumeIsNeitherFormattedNorMounted() throws Exception {
        node.node.nodeStageVolume(Csi.stage("pvc-b", node.staging("pvc-b"), Csi.block(Mode.SINGLE_NODE_SINGLE_WRITER),
                node.export("pvc-b", GIB), Map.of(VolumeContext.MKFS_OPTIONS, "-m 0")));
        assertThat(tools.commands()).isEmpty();
        assertThat(mounter.table()).isEmpty();
        assertThat(Files.readString(node.recordFile("pvc-b"))).contains("fs-type=block", "phase=staged");
    }

    @Test
    void incompatibleRepeatsAnswerAsTheSpecSays() {
        Map<String, String> context = node.export("pvc-1", GIB);
        node.node.nodeStageVolume(Csi.stage("pvc-1", node.staging("pvc-1"), Csi.ext4(), context, Map.of()));
        assertThat(code(() -> node.node.nodeStageVolume(Csi.stage("pvc-1", node.staging("pvc-1"),
                Csi.fs("ext4", Mode.SINGLE_NODE_MULTI_WRITER, "noatime"), context, Map.of()))))
                .isEqualTo(Status.Code.ALREADY_EXISTS);
        assertThat(code(() -> node.node.nodeStageVolume(Csi.stage("pvc-1", node.staging("pvc-1"),
                Csi.block(Mode.SINGLE_NODE_MULTI_WRITER), context, Map.of())))).isEqualTo(Status.Code.ALREADY_EXISTS);
        assertThat(code(() -> node.node.nodeStageVolume(Csi.stage("pvc-1", node.staging("pvc-1x"),
                Csi.ext4(), context, Map.of())))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(code(() -> node.node.nodeStageVolume(Csi.stage("pvc-1", node.staging("pvc-1"),
                Csi.ext4(), node.export("pvc-other", GIB), Map.of())))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(mounter.table()).hasSize(1);
    }

    @Test
    void aReadOnlyManyVolumeIsNeverFormattedAndIsStagedReadOnly() {
        Map<String, String> context = node.export("pvc-r", GIB);
        assertThat(code(() -> node.node.nodeStageVolume(Csi.stage("pvc-r", node.staging("pvc-r"),
                Csi.fs("ext4", Mode.MULTI_NODE_READER_ONLY), context, Map.of())))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(tools.count("mkfs.ext4")).isZero();
        tools.formatted(node.root.resolve("backing/pvc-r.img"), "ext4");
        node.node.nodeStageVolume(Csi.stage("pvc-r", node.staging("pvc-r"), Csi.fs("ext4", Mode.MULTI_NODE_READER_ONLY),
                context, Map.of()));
        assertThat(mounter.find(node.staging("pvc-r"))).get().satisfies(e -> assertThat(e.readOnly()).isTrue());
        assertThat(tools.count("resize2fs")).as("a read-only staging never writes").isZero();
    }

    @Test
    void unstageUndoesEverythingAndRepeatsAsOk() throws Exception {
        Path staging = node.staging("pvc-1");
        node.node.nodeStageVolume(Csi.stage("pvc-1", staging, Csi.ext4(), node.export("pvc-1", GIB), Map.of()));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-never-staged", node.staging("pvc-never-staged")));
        assertThat(mounter.table()).isEmpty();
        assertThat(node.recordFile("pvc-1")).doesNotExist();
        assertThat(node.initiator.calls()).contains("disconnect nvme0");
        assertThat(node.root.resolve("sys/class/nvme/nvme0")).doesNotExist();
        assertThat(node.root.resolve("dev/nvme0n1")).doesNotExist();
        assertThat(Files.list(node.state)).isEmpty();
    }

    @Test
    void aControllerAnotherStagedVolumeUsesIsKept() {
        Map<String, String> shared = node.export("pvc-1", GIB);
        node.node.nodeStageVolume(Csi.stage("pvc-1", node.staging("pvc-1"), Csi.ext4(), shared, Map.of()));
        node.node.nodeStageVolume(Csi.stage("pvc-2", node.staging("pvc-2"), Csi.ext4(), shared, Map.of()));
        node.node.nodeUnstageVolume(Csi.unstage("pvc-1", node.staging("pvc-1")));
        assertThat(node.initiator.count("disconnect")).isZero();
        node.node.nodeUnstageVolume(Csi.unstage("pvc-2", node.staging("pvc-2")));
        assertThat(node.initiator.count("disconnect")).isEqualTo(1);
    }

    @Test
    void aDeviceThatNeverAppearsLeavesARecordUnstageCanUndo() throws Exception {
        NodeFixture quick = new NodeFixture(node.root.resolve("quick"), mounter, tools,
                NodeFixture.sparseFiles(node.root.resolve("quick-backing")), Duration.ofMillis(300));
        try {
            quick.initiator.namespacesAppear(false);
            Path staging = quick.staging("pvc-1");
            var stage = Csi.stage("pvc-1", staging, Csi.ext4(), quick.export("pvc-1", GIB), Map.of());
            assertThat(code(() -> quick.node.nodeStageVolume(stage))).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            assertThat(Files.readString(quick.recordFile("pvc-1"))).contains("phase=attaching", "controller=nvme0");
            quick.node.nodeUnstageVolume(Csi.unstage("pvc-1", staging));
            assertThat(quick.initiator.calls()).contains("disconnect nvme0");
            assertThat(quick.recordFile("pvc-1")).doesNotExist();
        } finally {
            quick.close();
        }
    }

    @Test
    void aRetryAfterAFailedMkfsOrMountConverges() {
        Path staging = node.staging("pvc-1");
        var stage = Csi.stage("pvc-1", staging, Csi.ext4(), node.export("pvc-1", GIB), Map.of());
        tools.failNext("mkfs.ext4", 1, "mkfs.ext4: interrupted");
        assertThat(code(() -> node.node.nodeStageVolume(stage))).isEqualTo(Status.Code.INTERNAL);
        assertThat(mounter.table()).isEmpty();
        node.node.nodeStageVolume(stage);
        assertThat(tools.count("mkfs.ext4")).isEqualTo(2); // the failed one and the one that made the filesystem
        assertThat(node.initiator.count("connect")).isEqualTo(2);
        assertThat(Files.exists(node.root.resolve("sys/class/nvme/nvme1"))).isFalse(); // one controller, reused

        // the filesystem exists, the mount went away (as after a crash between mkfs and mount, or a reboot)
        mounter.unmount(staging);
        node.node.nodeStageVolume(stage);
        assertThat(tools.count("mkfs.ext4")).isEqualTo(2);
        assertThat(mounter.countAt(staging)).isEqualTo(1);
    }
}
