package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.agent.VmBed.CONFIGFS;
import static pillar.agent.VmBed.entries;
import static pillar.agent.VmBed.run;
import static pillar.agent.VmBed.sha256;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.agent.configfs.FabricsInitiator;
import pillar.agent.configfs.NamespaceId;
import pillar.agent.configfs.PortAddress;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * The agent as a real process on the real kernel (qemu VM), on all three backends: an LVM linear LV,
 * an LVM thin LV and a ZFS zvol exported over nvmet and reached by the kernel initiator with the right
 * size; growth seen by the connected initiator after revalidate; the agent killed with SIGKILL and
 * restarted (marks and exports stay); the kernel's target configuration wiped by unloading nvmet (what
 * a reboot does): the agent refuses to start without nvmet, then re-applies every export; data written
 * before reads back with the same checksum; stale tokens refused after all of that. Prints each call's
 * time as the client sees it.
 */
class AgentProcessKernelIT {
    private static final long MIB = 1L << 20;
    private static final String VG = "pillaragentvg";
    private static final String POOL = "pillaragentpool";
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:7b0c9d2e-1a3f-4c5d-8e6f-0a1b2c3d4e5f");
    private static final PortAddress TARGET = PortAddress.tcp("127.0.0.1", 4420);

    /** One volume of the scenario; {@code fs} true: ext4 and a file on it, false: raw data on the device. */
    private record Volume(String id, String backend, boolean fs, LifecycleUid life) {
        Volume(String id, String backend, boolean fs) {
            this(id, backend, fs, LifecycleUid.random());
        }

        pillar.api.agent.v1.FencingToken token(long generation) {
            return FencingToken.of(life, generation).toProto();
        }

        Nqn nqn() {
            return Nqn.of("nqn.2024-06.io.pillar-csi:" + id);
        }
    }

    private static final List<Volume> VOLUMES = List.of(new Volume("pvc-linear", "linear", false),
            new Volume("pvc-thin", "thin", true), new Volume("pvc-zvol", "zfs", false));

    @TempDir
    Path dir;

    private final List<String> timings = new ArrayList<>();
    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final Map<String, String> checksums = new LinkedHashMap<>();
    private AgentProcess agent;
    private Path lvmLoop;
    private Path zfsLoop;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(true);
    }

    @Test
    void exportsOnEveryBackendSurviveSigkillAndAWipedTargetWithTheirData() throws Exception {
        lvmLoop = VmBed.loopDevice(dir, "pv", 1024 * MIB);
        VmBed.volumeGroup(VG, lvmLoop, "512m");
        zfsLoop = VmBed.loopDevice(dir, "zpool", 1024 * MIB);
        VmBed.zpool(POOL, zfsLoop);
        Path config = AgentProcess.writeConfig(dir.resolve("agent.yaml"), 19500, 19810, dir.resolve("state"), List.of(),
                "{name: linear, type: lvm, volume-group: " + VG + "}",
                "{name: thin, type: lvm-thin, volume-group: " + VG + ", thin-pool: pool0}",
                "{name: zfs, type: zfs, pool: " + POOL + ", parent-dataset: k8s}");
        agent = new AgentProcess(dir, 19500, 19810);
        timings.add("agent start to ready: " + agent.start(config).toMillis() + " ms");
        // the host's own zfs tools pass the start-up check against its module (ZfsVersionKernelIT: the refusal)
        assertThat(agent.log()).contains("with the host's zfs module " + Files.readString(Path.of("/sys/module/zfs/version")).strip());

        for (Volume volume : VOLUMES) {
            createAndExport(volume);
            Path device = connect(volume);
            assertThat(initiator.sizeOf(device)).as(volume.id()).isEqualTo(64 * MIB);
            writeData(volume, device);
            // growth reaches the connected initiator through revalidate_size
            timed("ExpandVolume " + volume.backend() + " 64->128 MiB", () -> agent.stub().expandVolume(ExpandVolumeRequest
                    .newBuilder().setToken(volume.token(1)).setVolumeId(volume.id()).setBackend(volume.backend())
                    .setRequiredBytes(128 * MIB).build()));
            awaitSize(device, 128 * MIB);
            disconnectAll(volume);
        }

        // SIGKILL and restart: marks and exports stay
        agent.kill();
        timings.add("agent restart to ready: " + agent.start(config).toMillis() + " ms");
        assertThat(agent.stub().listExports(ListExportsRequest.getDefaultInstance()).getExportsList())
                .extracting(e -> e.getVolumeId() + (e.getDriftCount() == 0 ? "" : " drift " + e.getDriftList()))
                .containsExactlyInAnyOrder("pvc-linear", "pvc-thin", "pvc-zvol");
        VOLUMES.forEach(v -> assertStale(v, 0));

        // a "reboot": the kernel forgets the whole target configuration; without nvmet the agent refuses to start
        agent.kill();
        ConfigfsNvmetTarget kernel = new ConfigfsNvmetTarget(CONFIGFS);
        VOLUMES.forEach(v -> kernel.removeSubsystem(v.nqn()));
        run("modprobe", "-r", "nvmet_tcp", "nvmet");
        assertThat(agent.startExpectingExit(config)).isEqualTo(2);
        assertThat(agent.log()).contains("refusing to start: " + CONFIGFS.resolve("nvmet")
                + " does not exist although configfs is mounted: are nvmet and nvmet_tcp loaded?");
        run("modprobe", "nvmet");
        run("modprobe", "nvmet_tcp");
        assertThat(entries(CONFIGFS.resolve("nvmet/subsystems"))).isEmpty();
        timings.add("agent start on an empty target to ready: " + agent.start(config).toMillis() + " ms");
        assertThat(entries(CONFIGFS.resolve("nvmet/subsystems"))).containsExactlyInAnyOrderElementsOf(
                VOLUMES.stream().map(v -> v.nqn().value()).toList());

        for (Volume volume : VOLUMES) {
            Path device = connect(volume);
            assertThat(initiator.sizeOf(device)).as(volume.id()).isEqualTo(128 * MIB);
            assertThat(readData(volume, device)).as("the data of %s after SIGKILL and a wiped target", volume.id())
                    .isEqualTo(checksums.get(volume.id()));
            disconnectAll(volume);
            assertStale(volume, 0);
        }

        for (Volume volume : VOLUMES) {
            timed("DeleteVolume " + volume.backend() + " (unexport + destroy)", () -> agent.stub().deleteVolume(
                    DeleteVolumeRequest.newBuilder().setToken(volume.token(2)).setVolumeId(volume.id())
                            .setBackend(volume.backend()).build()));
        }
        assertThat(entries(CONFIGFS.resolve("nvmet/subsystems"))).isEmpty();
        assertThat(entries(CONFIGFS.resolve("nvmet/ports"))).isEmpty();
        assertThat(run("zfs", "list", "-H", "-t", "volume", "-o", "name", "-r", POOL)).isEmpty();
        assertThat(run("lvs", "--noheadings", "-o", "lv_name", "-S", "lv_name=~^pvc-", VG)).isBlank();
        System.out.println("[agent-kernel-it] agent call times (as seen by the client, TCG):");
        timings.forEach(t -> System.out.println("[agent-kernel-it]   " + t));
    }

    private void createAndExport(Volume volume) {
        timed("CreateVolume " + volume.backend() + " 64 MiB", () -> agent.stub().createVolume(CreateVolumeRequest.newBuilder()
                .setToken(volume.token(1)).setVolumeId(volume.id()).setBackend(volume.backend()).setSizeBytes(64 * MIB).build()));
        String nqn = timed("ExportVolume " + volume.backend(), () -> agent.stub().exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(volume.token(1)).setVolumeId(volume.id()).setBackend(volume.backend())
                .setExport(ExportSpec.newBuilder().setBindAddress(TARGET.traddr()).setPort(TARGET.trsvcid())
                        .setAclEnabled(true)).build())).getSubsystemNqn();
        assertThat(nqn).isEqualTo(volume.nqn().value());
        timed("AllowInitiator " + volume.backend(), () -> agent.stub().allowInitiator(AllowInitiatorRequest.newBuilder()
                .setToken(volume.token(1)).setVolumeId(volume.id()).setHostNqn(HOST.value()).build()));
    }

    /** 4 MiB of random data: in a file on ext4, or on the device itself at offset 1 MiB. */
    private void writeData(Volume volume, Path device) throws Exception {
        byte[] data = new byte[4 * (int) MIB];
        new Random(volume.id().hashCode()).nextBytes(data);
        if (volume.fs()) {
            run("mkfs.ext4", "-q", device.toString());
            Path mnt = Files.createDirectories(dir.resolve("mnt"));
            run("mount", device.toString(), mnt.toString());
            Files.write(mnt.resolve("data"), data);
            run("umount", mnt.toString());
        } else {
            try (RandomAccessFile raw = new RandomAccessFile(device.toFile(), "rw")) {
                raw.seek(MIB);
                raw.write(data);
                raw.getFD().sync();
            }
        }
        checksums.put(volume.id(), sha256(data));
    }

    private String readData(Volume volume, Path device) throws Exception {
        byte[] data = new byte[4 * (int) MIB];
        if (volume.fs()) {
            Path mnt = dir.resolve("mnt");
            run("mount", "-o", "ro", device.toString(), mnt.toString());
            data = Files.readAllBytes(mnt.resolve("data"));
            run("umount", mnt.toString());
        } else {
            try (RandomAccessFile raw = new RandomAccessFile(device.toFile(), "r")) {
                raw.seek(MIB);
                raw.readFully(data);
            }
        }
        return sha256(data);
    }

    private void assertStale(Volume volume, long generation) {
        assertThatThrownBy(() -> agent.stub().expandVolume(ExpandVolumeRequest.newBuilder()
                .setToken(volume.token(generation)).setVolumeId(volume.id()).setBackend(volume.backend())
                .setRequiredBytes(256 * MIB).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    }

    private Path connect(Volume volume) throws Exception {
        initiator.connect(TARGET, volume.nqn(), HOST);
        return initiator.awaitHead(volume.nqn(), NamespaceId.of(1), Duration.ofSeconds(30));
    }

    private void disconnectAll(Volume volume) throws Exception {
        for (String controller : initiator.controllersOf(volume.nqn())) {
            initiator.disconnect(controller, Duration.ofSeconds(30));
        }
    }

    private void awaitSize(Path device, long bytes) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (initiator.sizeOf(device) != bytes) {
            assertThat(System.nanoTime()).as("%s never reached %d bytes", device, bytes).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private <T> T timed(String what, Supplier<T> call) {
        long start = System.nanoTime();
        T result = call.get();
        timings.add(what + ": " + (System.nanoTime() - start) / 1_000_000 + " ms");
        return result;
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (agent != null) {
            agent.close();
        }
        List<VmBed.Step> steps = new ArrayList<>();
        if (Files.readString(Path.of("/proc/self/mounts")).contains(dir.resolve("mnt") + " ")) {
            steps.add(() -> run("umount", dir.resolve("mnt").toString()));
        }
        for (Volume volume : VOLUMES) {
            steps.add(() -> disconnectAll(volume));
            steps.add(() -> new ConfigfsNvmetTarget(CONFIGFS).removeSubsystem(volume.nqn()));
        }
        steps.add(() -> run("vgremove", "-q", "-f", VG));
        steps.add(() -> run("zpool", "destroy", "-f", POOL));
        if (lvmLoop != null) {
            steps.add(() -> run("pvremove", "-q", lvmLoop.toString()));
            steps.add(() -> run("losetup", "--detach", lvmLoop.toString()));
        }
        if (zfsLoop != null) {
            steps.add(() -> run("losetup", "--detach", zfsLoop.toString()));
        }
        List<String> problems = VmBed.cleanUp(steps.toArray(VmBed.Step[]::new));
        System.out.println("[agent-kernel-it] clean-up: " + (problems.isEmpty() ? "nothing left" : problems));
    }
}
