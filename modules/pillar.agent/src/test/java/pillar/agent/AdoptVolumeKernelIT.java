package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.agent.VmBed.CONFIGFS;
import static pillar.agent.VmBed.run;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.backend.Backends;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AdoptVolumeRequest;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.Volume;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.WorkloadServer;

/**
 * AdoptVolume through the real agent (in this JVM, over gRPC: real LVM, real zfs, the kernel's nvmet, /proc and
 * /sys) in the qemu VM: an LV made with a plain lvcreate and a zvol made with a plain zfs create -V, each holding
 * bytes, are adopted with their bytes unchanged (the LV then exported, and a retry while exported answers it); an LV
 * a process holds open, a zvol a process holds open and a zvol another tool's nvmet namespace serves are IN_USE, and
 * a zvol another installation marked is FOREIGN, each with its marks as they were; a filesystem dataset with a refquota
 * keeps its files and is marked, one without a refquota has no size to serve (OUT_OF_RANGE) and another
 * installation's is FOREIGN.
 */
class AdoptVolumeKernelIT {
    private static final long MIB = 1L << 20;
    private static final String INSTALLATION_TAG = "pillar-csi.installation:embedded";
    private static final String MANAGED = "io.pillar-csi:managed";

    @TempDir
    Path dir;

    private final String vg = "adopt" + UUID.randomUUID().toString().substring(0, 8);
    private final String pool = "adopt" + UUID.randomUUID().toString().substring(0, 8);
    private final LifecycleUid life = LifecycleUid.random();
    private final List<Process> holders = new ArrayList<>();
    private final List<Path> loops = new ArrayList<>();
    private final Path otherSubsystem = CONFIGFS.resolve("nvmet/subsystems/nqn.2014-08.org.example:adopt-kit-other");
    private WorkloadServer agent;
    private ManagedChannel channel;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(true);
    }

    @BeforeEach
    void agentOnAVolumeGroupAndAPool() throws IOException {
        Path lvmLoop = VmBed.loopDevice(dir, "lvm", 128 * MIB);
        loops.add(lvmLoop);
        run("pvcreate", "-q", lvmLoop.toString());
        run("vgcreate", "-q", vg, lvmLoop.toString());
        Path zfsLoop = VmBed.loopDevice(dir, "zfs", 256 * MIB);
        loops.add(zfsLoop);
        VmBed.zpool(pool, zfsLoop);
        run("zfs", "create", "-o", "mountpoint=" + dir.resolve("nfs"), pool + "/nfs");
        List<BackendConfig> backends = List.of(new BackendConfig("lvm", BackendKind.BACKEND_KIND_LVM_LINEAR, vg, ""),
                new BackendConfig("zfs", BackendKind.BACKEND_KIND_ZFS_ZVOL, pool, "k8s"),
                new BackendConfig("datasets", BackendKind.BACKEND_KIND_ZFS_DATASET, pool, "nfs"));
        AgentConfig config = new AgentConfig("127.0.0.1", 0, dir.resolve("state"), CONFIGFS, Optional.empty(), backends, "127.0.0.1", 0);
        ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(CONFIGFS);
        agent = AgentMain.start(config, Backends.create(backends, new SystemProcessRunner(), Backends.Host.system()), target,
                AgentMain.checkState(config, target), WorkloadMetrics.disabled("agent"));
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create()).build();
    }

    private AgentServiceGrpc.AgentServiceBlockingStub stub() {
        return AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    private Volume adopt(String backend, String id, long minSize) {
        return stub().adoptVolume(AdoptVolumeRequest.newBuilder().setToken(FencingToken.of(life, 0).toProto()).setVolumeId(id)
                .setBackend(backend).setMinSizeBytes(minSize).build()).getVolume();
    }

    private void assertRefused(AgentErrorReason reason, String fragment, String backend, String id) {
        assertThatThrownBy(() -> adopt(backend, id, 0)).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(AgentErrors.reasonOf(e)).as(e.getStatus().toString()).isEqualTo(reason);
            assertThat(e.getStatus().getDescription()).contains(fragment);
        });
    }

    @Test
    void aPlainLvKeepsItsBytesAndExportsAndAnOpenOneIsInUse() throws Exception {
        run("lvcreate", "-q", "-y", "-n", "plain", "-L", "16m", vg);
        Path plain = Path.of("/dev", vg, "plain");
        byte[] data = write(plain);

        Volume volume = adopt("lvm", "plain", 16 * MIB);

        assertThat(volume.getDevicePath()).isEqualTo(plain.toString());
        assertThat(volume.getSizeBytes()).isEqualTo(16 * MIB);
        assertThat(read(plain, data.length)).as("the LV's bytes after the adoption").isEqualTo(data);
        assertThat(tags("plain")).contains("pillar-csi", INSTALLATION_TAG);
        stub().exportVolume(ExportVolumeRequest.newBuilder().setToken(FencingToken.of(life, 0).toProto()).setVolumeId("plain")
                .setBackend("lvm").setExport(ExportSpec.newBuilder().setBindAddress("127.0.0.1").setPort(4420)).build());
        Path namespace = CONFIGFS.resolve("nvmet/subsystems/nqn.2024-06.io.pillar-csi:plain/namespaces/1");
        assertThat(Files.readString(namespace.resolve("enable")).strip()).isEqualTo("1");
        assertThat(Files.readString(namespace.resolve("device_path")).strip()).isEqualTo(plain.toString());
        assertThat(adopt("lvm", "plain", 0)).as("a retry while exported").isEqualTo(volume);

        run("lvcreate", "-q", "-y", "-n", "held", "-L", "8m", vg);
        hold(Path.of("/dev", vg, "held"));
        awaitOpen("held");
        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE, "its device is open", "lvm", "held");
        assertThat(tags("held")).isEmpty();
    }

    @Test
    void aPlainZvolKeepsItsBytesAndAHeldServedOrForeignOneIsRefused() throws Exception {
        run("zfs", "create", "-V", "16M", pool + "/k8s/plain");
        Path plain = zvolDevice(pool + "/k8s/plain");
        byte[] data = write(plain);

        Volume volume = adopt("zfs", "plain", 16 * MIB);

        assertThat(Path.of(volume.getDevicePath()).toRealPath()).isEqualTo(plain.toRealPath());
        assertThat(read(plain, data.length)).as("the zvol's bytes after the adoption").isEqualTo(data);
        assertThat(property(pool + "/k8s/plain")).isEqualTo("embedded\tlocal");

        run("zfs", "create", "-V", "8M", "-o", MANAGED + "=staging", pool + "/k8s/foreign");
        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_FOREIGN, "staging", "zfs", "foreign");
        assertThat(property(pool + "/k8s/foreign")).isEqualTo("staging\tlocal");

        run("zfs", "create", "-V", "8M", pool + "/k8s/held");
        hold(zvolDevice(pool + "/k8s/held"));
        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE, "open in process", "zfs", "held");
        assertThat(property(pool + "/k8s/held")).isEqualTo("-\t-");

        run("zfs", "create", "-V", "8M", pool + "/k8s/served");
        Path served = zvolDevice(pool + "/k8s/served");
        Files.createDirectory(otherSubsystem);
        Files.createDirectory(otherSubsystem.resolve("namespaces/1"));
        Files.writeString(otherSubsystem.resolve("namespaces/1/device_path"), served.toString());
        Files.writeString(otherSubsystem.resolve("namespaces/1/enable"), "1");
        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE, "adopt-kit-other has it as namespace 1 (enabled", "zfs", "served");
        assertThat(property(pool + "/k8s/served")).isEqualTo("-\t-");
    }

    @Test
    void aPlainFilesystemKeepsItsFilesAndOneWithoutASizeOrOfAnotherInstallationIsRefused() throws Exception {
        run("zfs", "create", "-o", "refquota=32M", pool + "/nfs/plainfs");
        Path file = dir.resolve("nfs/plainfs/kept.txt");
        Files.writeString(file, "written before pillar-csi knew the dataset\n");

        Volume volume = adopt("datasets", "plainfs", 32 * MIB);

        assertThat(volume.getSizeBytes()).isEqualTo(32 * MIB);
        assertThat(Files.readString(file)).as("the dataset's files after the adoption").isEqualTo("written before pillar-csi knew the dataset\n");
        assertThat(property(pool + "/nfs/plainfs")).isEqualTo("embedded\tlocal");

        run("zfs", "create", pool + "/nfs/unsized");
        assertThatThrownBy(() -> adopt("datasets", "unsized", 0)).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.OUT_OF_RANGE))
                .hasMessageContaining("refquota");
        assertThat(property(pool + "/nfs/unsized")).isEqualTo("-\t-");

        run("zfs", "create", "-o", "refquota=8M", "-o", MANAGED + "=staging", pool + "/nfs/foreignfs");
        assertRefused(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_FOREIGN, "staging", "datasets", "foreignfs");
        assertThat(property(pool + "/nfs/foreignfs")).isEqualTo("staging\tlocal");
    }

    /** 1 MiB of random bytes written at the device's start, to the disk. */
    private static byte[] write(Path device) throws IOException {
        byte[] data = new byte[(int) MIB];
        new Random(42).nextBytes(data);
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(data), 0);
            channel.force(true);
        }
        return data;
    }

    private static byte[] read(Path device, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length);
        try (FileChannel channel = FileChannel.open(device, StandardOpenOption.READ)) {
            while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0) {
                // read on
            }
        }
        return buffer.array();
    }

    /** A process that holds {@code device} open (its stdin) until the clean-up ends it. */
    private void hold(Path device) throws IOException {
        holders.add(new ProcessBuilder("sleep", "120").redirectInput(device.toFile()).start());
    }

    /** Waits until lvs shows the LV open (lv_attr's 6th character), as the shell's open lands. */
    private void awaitOpen(String lv) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (run("lvs", "--noheadings", "-o", "lv_attr", vg + "/" + lv).strip().charAt(5) != 'o') {
            assertThat(System.nanoTime() - end).as("%s/%s never showed open", vg, lv).isNegative();
            Thread.sleep(50);
        }
    }

    private List<String> tags(String lv) {
        String text = run("lvs", "--noheadings", "-o", "lv_tags", vg + "/" + lv).strip();
        return text.isEmpty() ? List.of() : List.of(text.split(","));
    }

    /** The mark's value and source, tab-separated, as {@code zfs get -H} prints them. */
    private static String property(String dataset) {
        return run("zfs", "get", "-H", "-o", "value,source", MANAGED, dataset).strip();
    }

    /** The zvol's {@code /dev/zdN}: the VM has no udev, so the node whose zvol_id names the dataset, once it appears. */
    private static Path zvolDevice(String dataset) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() - end < 0) {
            for (String name : VmBed.entries(Path.of("/sys/block"))) {
                Path node = Path.of("/dev", name);
                if (name.matches("zd[0-9]+") && Files.exists(node)
                        && new SystemProcessRunner().run(pillar.runtime.exec.Command.of(Duration.ofSeconds(10), "/lib/udev/zvol_id",
                                node.toString())).stdout().strip().equals(dataset)) {
                    return node;
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no /dev/zd* of " + dataset + " within 10 s");
    }

    @AfterEach
    void cleanUp() {
        List<VmBed.Step> steps = new ArrayList<>();
        steps.add(() -> {
            if (channel != null) {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        });
        steps.add(() -> {
            if (agent != null) {
                agent.close();
            }
        });
        steps.add(() -> holders.forEach(Process::destroyForcibly));
        steps.add(() -> {
            for (Process holder : holders) {
                holder.waitFor(10, TimeUnit.SECONDS);
            }
        });
        steps.add(() -> new ConfigfsNvmetTarget(CONFIGFS).removeSubsystem(Nqn.of("nqn.2024-06.io.pillar-csi:plain")));
        steps.add(() -> {
            if (Files.exists(otherSubsystem)) {
                Files.writeString(otherSubsystem.resolve("namespaces/1/enable"), "0");
                Files.delete(otherSubsystem.resolve("namespaces/1"));
                Files.delete(otherSubsystem);
            }
        });
        steps.add(() -> run("vgremove", "-q", "-f", vg));
        steps.add(() -> run("zpool", "destroy", "-f", pool));
        for (Path loop : loops) {
            steps.add(() -> run("losetup", "--detach", loop.toString()));
        }
        assertThat(VmBed.cleanUp(steps.toArray(VmBed.Step[]::new))).as("clean-up").isEmpty();
    }
}
