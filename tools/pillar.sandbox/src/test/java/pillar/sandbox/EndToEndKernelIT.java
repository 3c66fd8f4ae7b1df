package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The end-to-end suite on the real kernel (qemu VM, dev/kernel-it): the three workloads as real
 * processes from their module paths, the emulated Kubernetes API, real LVM (linear and thin) and
 * ZFS pools on loop devices, real nvmet and NVMe/TCP, all driven through the real CSI sockets as
 * the sidecars and kubelet drive them. The workloads start once for the class (a JVM takes minutes
 * under emulation). The agent's crash comes last: it restarts the agent.
 *
 * <p>The lifecycle matrix covers every filesystem once and every backend once (lvm-thin with ext4,
 * lvm with xfs, zfs with Block), the agent's crash runs on zfs with xfs, the access modes and the
 * conformance checks on lvm-thin with ext4, the snapshot scenario on zfs in Block mode, and one
 * ReadWriteMany volume over NFS on the two NFS nodes (the controller, the agent and the nodes together,
 * as dev/sandbox --protocol nfs plays it). {@code PILLAR_SUITE_MATRIX=full} ({@code dev/kernel-it --full})
 * runs all nine lifecycles instead and the snapshot scenario on lvm-thin and zfs, each with ext4 or xfs
 * and in Block mode.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EndToEndKernelIT {
    private static final long MIB = 1 << 20;

    @TempDir
    static Path dir;

    private static SuiteBed suite;

    @BeforeAll
    static void start() throws Exception {
        suite = SuiteBed.start(dir, "EndToEndKernelIT");
    }

    @AfterAll
    static void stop() {
        if (suite != null) {
            suite.close();
        }
    }

    @Order(1)
    @TestFactory
    Stream<DynamicTest> theWholeLifecycleOfAVolume() {
        List<Object[]> matrix = "full".equals(System.getenv("PILLAR_SUITE_MATRIX"))
                ? Stream.of(Backend.values()).flatMap(b -> Stream.of(VolumeMode.values()).map(m -> new Object[] {b, m})).toList()
                : List.of(new Object[] {Backend.LVM_THIN, VolumeMode.EXT4}, new Object[] {Backend.LVM, VolumeMode.XFS},
                        new Object[] {Backend.ZFS, VolumeMode.BLOCK});
        return matrix.stream().map(c -> DynamicTest.dynamicTest(c[0] + " " + c[1], () -> lifecycle((Backend) c[0], (VolumeMode) c[1])));
    }

    private static void lifecycle(Backend backend, VolumeMode mode) {
        System.out.println();
        System.out.println("[suite] lifecycle: " + backend + " " + mode);
        Lifecycle.Plan plan = new Lifecycle.Plan(backend + " " + mode, mode, mode.fsType(),
                suite.parameters(backend, mode.fsType()), 320 * MIB, 640 * MIB);
        Steps.Result result = new Lifecycle(suite.bed.controller(), suite.bed.node(), System.out).run(plan);
        Steps.summary(result, System.out);
        assertThat(result.failed()).as("the failed step").isNull();
        assertThat(result.passed()).as("every step of " + plan.label()).isTrue();
        countedByTheWorkloads(backend);
    }

    /**
     * What the lifecycle did, as each workload's /metrics tells it (read over HTTP like Prometheus):
     * the CSI calls served with OK, the agent's calls, and the real host commands and configfs writes.
     */
    private static void countedByTheWorkloads(Backend backend) {
        Map<String, Integer> ports = BedLayout.Ports.VM.healthPorts();
        String controller = scrape(ports.get("controller"));
        String agent = scrape(ports.get("agent"));
        String node = scrape(ports.get("node"));
        for (String method : List.of("CreateVolume", "ControllerPublishVolume", "ControllerUnpublishVolume", "DeleteVolume")) {
            assertThat(count(controller, "pillar_csi_operation_seconds_count{code=\"OK\",method=\"" + method
                    + "\",workload=\"controller\"}")).as("controller " + method).isPositive();
        }
        for (String method : List.of("NodeStageVolume", "NodePublishVolume", "NodeUnpublishVolume", "NodeUnstageVolume")) {
            assertThat(count(node, "pillar_csi_operation_seconds_count{code=\"OK\",method=\"" + method
                    + "\",workload=\"node\"}")).as("node " + method).isPositive();
        }
        String create = backend == Backend.ZFS ? "zfs create" : "lvcreate";
        assertThat(count(agent, "pillar_agent_command_seconds_count{command=\"" + create + "\",outcome=\"ok\"}"))
                .as("the agent's " + create).isPositive();
        assertThat(count(agent, "pillar_agent_configfs_seconds_count{operation=\"mkdir\",outcome=\"ok\"}"))
                .as("the agent's configfs mkdirs").isPositive();
        assertThat(controller + agent + node).as("no volume ID in a label").doesNotContain("pvc-");
    }

    private static String scrape(int port) {
        try {
            return pillar.launch.MetricsScrape.text(pillar.launch.MetricsScrape.uri(port));
        } catch (java.io.IOException e) {
            throw new AssertionError("the workload on health port " + port + " serves no metrics: " + e.getMessage(), e);
        }
    }

    /** The value of one series in an exposition text, 0 when it is absent. */
    private static double count(String exposition, String series) {
        return exposition.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(
                l.substring(series.length() + 1).strip())).findFirst().orElse(0);
    }

    @Order(2)
    @Test
    void readWriteOnceIsRefusedOnASecondNodeAndWorksThereAfterUnpublish() throws Exception {
        new AccessModeScenarios(suite).readWriteOnceIsExclusiveUntilUnpublished();
    }

    @Order(3)
    @Test
    void readOnlyManyIsReadOnTwoNodesAtOnceAndWrittenOnNeither() throws Exception {
        new AccessModeScenarios(suite).readOnlyManyIsReadByTwoNodesAndWrittenByNone();
    }

    @Order(4)
    @TestFactory
    Stream<DynamicTest> csiConformance() {
        return new CsiConformance(suite).checks();
    }

    @Order(5)
    @TestFactory
    List<DynamicTest> volumeCondition() {
        return new VolumeConditionConformance(suite).checks();
    }

    @Order(6)
    @TestFactory
    List<DynamicTest> listVolumesConformance() {
        return new ListVolumesConformance(suite).checks();
    }

    @Order(7)
    @Test
    void theAgentKilledAndTheTargetWipedInTheMiddleOfALifecycle() throws Exception {
        new AgentRecoveryScenario(suite).run(Backend.ZFS, VolumeMode.XFS);
    }

    @Order(8)
    @TestFactory
    List<DynamicTest> snapshotConformance() {
        return new SnapshotConformance(suite).checks();
    }

    /**
     * ZFS in Block mode ({@code PILLAR_SUITE_MATRIX=full}: LVM thin and ZFS, each with a filesystem and Block).
     * A ZFS zvol is busy while anything holds it open (the agent's own zvol_id probes included), so every destroy of one, the reap of hidden
     * sources too, is excluded from probes and retried while busy.
     */
    @Order(9)
    @TestFactory
    Stream<DynamicTest> aSnapshotRestoredAndAVolumeClonedHoldTheirData() {
        // ZFS only in the gate: LVM thin's restore and clone already run through the workloads in
        // snapshotConformance and keep their data in LvmSnapshotKernelIT (dev/kernel-it --full: all four)
        List<Object[]> matrix = "full".equals(System.getenv("PILLAR_SUITE_MATRIX"))
                ? List.of(new Object[] {Backend.LVM_THIN, VolumeMode.EXT4}, new Object[] {Backend.LVM_THIN, VolumeMode.BLOCK},
                        new Object[] {Backend.ZFS, VolumeMode.BLOCK}, new Object[] {Backend.ZFS, VolumeMode.XFS})
                : List.<Object[]>of(new Object[] {Backend.ZFS, VolumeMode.BLOCK});
        return matrix.stream().map(c -> DynamicTest.dynamicTest(c[0] + " " + c[1], () -> {
            Backend backend = (Backend) c[0];
            VolumeMode mode = (VolumeMode) c[1];
            System.out.println();
            System.out.println("[suite] snapshot scenario: " + backend + " " + mode);
            Lifecycle.Plan plan = new Lifecycle.Plan(backend + " " + mode, mode, mode.fsType(),
                    suite.parameters(backend, mode.fsType()), 320 * MIB, 640 * MIB);
            Steps.Result result = new SnapshotScenario(suite.bed.controller(), suite.bed.node(), System.out).run(plan);
            Steps.summary(result, System.out);
            assertThat(result.failed()).as("the failed step").isNull();
            assertThat(result.passed()).as("every step of " + result.label()).isTrue();
        }));
    }

    /**
     * ReadWriteMany over NFS through the three workloads: the controller admits each NFS node by its
     * Node's InternalIP, both nodes read each other's writes, the volume grows, the second node is
     * unpublished while mounted and cut off on the wire while the first writes on, nothing is left.
     */
    @Order(10)
    @Test
    void aReadWriteManyVolumeOverNfsIsSharedByTwoNodesAndTheUnpublishedOneIsCutOff() {
        System.out.println();
        System.out.println("[suite] NFS scenario: " + SandboxObjects.NFS_STORAGE_CLASS);
        Steps.Result result = new NfsScenario(suite.bed.controller(), suite.bed.nfsd(), suite.bed.nfsNodes(), suite.kubeletDirs(),
                System.out)
                .run("nfs ReadWriteMany", suite.parameters(SandboxObjects.NFS_STORAGE_CLASS), 320 * MIB, 640 * MIB);
        Steps.summary(result, System.out);
        assertThat(result.failed()).as("the failed step").isNull();
        assertThat(result.passed()).as("every step of " + result.label()).isTrue();
    }
}
