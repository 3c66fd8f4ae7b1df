package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
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
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.DeleteVolumeRequest;
import pillar.api.agent.v1.ExpandVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.agent.v1.ListExportsRequest;
import pillar.api.exec.Command;
import pillar.api.exec.SystemProcessRunner;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * The agent as a real process on the real kernel (qemu VM): LVM linear and thin volumes exported
 * over nvmet and reached by the kernel initiator; the agent killed with SIGKILL and restarted; the
 * kernel's target configuration wiped (what a reboot does); data written before reads back with the
 * same checksum; stale tokens refused after all of that. Prints each agent call's time.
 */
class AgentProcessKernelIT {
    private static final long MIB = 1L << 20;
    private static final Path CONFIGFS = Path.of("/sys/kernel/config");
    private static final String VG = "pillaragentvg";
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:7b0c9d2e-1a3f-4c5d-8e6f-0a1b2c3d4e5f");
    private static final PortAddress TARGET = PortAddress.tcp("127.0.0.1", 4420);
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();

    @TempDir
    Path dir;

    private final List<String> timings = new ArrayList<>();
    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final LifecycleUid thinLife = LifecycleUid.random();
    private final LifecycleUid linearLife = LifecycleUid.random();
    private Path loop;
    private Process agent;
    private ManagedChannel channel;
    private AgentServiceGrpc.AgentServiceBlockingStub stub;

    @BeforeAll
    static void requireVm() {
        assertThat(System.getenv("PILLAR_KERNEL_VM")).as("PILLAR_KERNEL_VM: runs only in the qemu VM (dev/kernel-it)")
                .isEqualTo("1");
        assertThat(CONFIGFS.resolve("nvmet")).as("nvmet configfs").isDirectory();
    }

    @Test
    void exportsSurviveSigkillAndAWipedTargetWithTheirData() throws Exception {
        Path image = dir.resolve("pv.img");
        try (RandomAccessFile file = new RandomAccessFile(image.toFile(), "rw")) {
            file.setLength(1024 * MIB);
        }
        loop = Path.of(run("losetup", "--find", "--show", image.toString()).strip());
        run("pvcreate", "-q", loop.toString());
        run("vgcreate", "-q", VG, loop.toString());
        run("lvcreate", "-q", "--type", "thin-pool", "-L", "512m", "-n", "pool0", VG);
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, """
                agent:
                  listen: {host: 127.0.0.1, port: 19500}
                  state-dir: %s
                  configfs-root: /sys/kernel/config
                  backends:
                    - {name: linear, type: lvm, volume-group: %s}
                    - {name: thin, type: lvm-thin, volume-group: %s, thin-pool: pool0}
                health: {host: 127.0.0.1, port: 19810}
                """.formatted(dir.resolve("state"), VG, VG));

        startAgent(config);
        String thinNqn = createAndExport("pvc-thin", "thin", thinLife);
        String linearNqn = createAndExport("pvc-linear", "linear", linearLife);

        // the initiator sees the volume, we put a filesystem and data on it
        Path device = connect(thinNqn);
        assertThat(initiator.sizeOf(device)).isEqualTo(64 * MIB);
        run("mkfs.ext4", "-q", device.toString());
        Path mnt = Files.createDirectories(dir.resolve("mnt"));
        run("mount", device.toString(), mnt.toString());
        byte[] data = new byte[4 * (int) MIB];
        new Random(42).nextBytes(data);
        Files.write(mnt.resolve("data"), data);
        run("umount", mnt.toString());
        String checksum = sha256(data);

        // growth reaches the connected initiator through revalidate_size
        timed("ExpandVolume thin 64->128 MiB", () -> stub.expandVolume(ExpandVolumeRequest.newBuilder()
                .setToken(FencingToken.of(thinLife, 1).toProto()).setVolumeId("pvc-thin").setBackend("thin")
                .setRequiredBytes(128 * MIB).build()));
        awaitSize(device, 128 * MIB);
        disconnectAll(thinNqn);

        // SIGKILL and restart: marks and exports stay
        agent.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        startAgent(config);
        assertThat(stub.listExports(ListExportsRequest.getDefaultInstance()).getExportsList())
                .extracting(e -> e.getVolumeId()).containsExactlyInAnyOrder("pvc-thin", "pvc-linear");
        assertStale("pvc-thin", thinLife, 0);

        // a "reboot": the kernel forgets the whole target configuration
        agent.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        ConfigfsNvmetTarget kernel = new ConfigfsNvmetTarget(CONFIGFS);
        kernel.removeSubsystem(Nqn.of(thinNqn));
        kernel.removeSubsystem(Nqn.of(linearNqn));
        run("modprobe", "-r", "nvmet_tcp", "nvmet");
        run("modprobe", "nvmet");
        run("modprobe", "nvmet_tcp");
        assertThat(list(CONFIGFS.resolve("nvmet/subsystems"))).isEmpty();
        startAgent(config);
        assertThat(list(CONFIGFS.resolve("nvmet/subsystems"))).containsExactlyInAnyOrder(thinNqn, linearNqn);

        device = connect(thinNqn);
        assertThat(initiator.sizeOf(device)).isEqualTo(128 * MIB);
        run("mount", "-o", "ro", device.toString(), mnt.toString());
        assertThat(sha256(Files.readAllBytes(mnt.resolve("data")))).isEqualTo(checksum);
        run("umount", mnt.toString());
        disconnectAll(thinNqn);
        assertThat(initiator.sizeOf(connect(linearNqn))).isEqualTo(64 * MIB);
        disconnectAll(linearNqn);
        assertStale("pvc-thin", thinLife, 0);

        timed("DeleteVolume thin (unexport + lvremove)", () -> stub.deleteVolume(DeleteVolumeRequest.newBuilder()
                .setToken(FencingToken.of(thinLife, 2).toProto()).setVolumeId("pvc-thin").setBackend("thin").build()));
        timed("DeleteVolume linear (unexport + lvremove)", () -> stub.deleteVolume(DeleteVolumeRequest.newBuilder()
                .setToken(FencingToken.of(linearLife, 2).toProto()).setVolumeId("pvc-linear").setBackend("linear")
                .build()));
        assertThat(list(CONFIGFS.resolve("nvmet/subsystems"))).isEmpty();
        assertThat(list(CONFIGFS.resolve("nvmet/ports"))).isEmpty();
        System.out.println("[agent-kernel-it] agent call times (as seen by the client, TCG):");
        timings.forEach(t -> System.out.println("[agent-kernel-it]   " + t));
    }

    private String createAndExport(String id, String backend, LifecycleUid life) {
        FencingToken token = FencingToken.of(life, 1);
        timed("CreateVolume " + backend + " 64 MiB", () -> stub.createVolume(CreateVolumeRequest.newBuilder()
                .setToken(token.toProto()).setVolumeId(id).setBackend(backend).setSizeBytes(64 * MIB).build()));
        String nqn = timed("ExportVolume " + backend, () -> stub.exportVolume(ExportVolumeRequest.newBuilder()
                .setToken(token.toProto()).setVolumeId(id).setBackend(backend)
                .setExport(ExportSpec.newBuilder().setBindAddress(TARGET.traddr()).setPort(TARGET.trsvcid())
                        .setAclEnabled(true)).build())).getSubsystemNqn();
        timed("AllowInitiator " + backend, () -> stub.allowInitiator(AllowInitiatorRequest.newBuilder()
                .setToken(token.toProto()).setVolumeId(id).setHostNqn(HOST.value()).build()));
        return nqn;
    }

    private void assertStale(String id, LifecycleUid life, long generation) {
        assertThatThrownBy(() -> stub.expandVolume(ExpandVolumeRequest.newBuilder()
                .setToken(FencingToken.of(life, generation).toProto()).setVolumeId(id).setBackend("thin")
                .setRequiredBytes(256 * MIB).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
    }

    private Path connect(String nqn) throws Exception {
        initiator.connect(TARGET, Nqn.of(nqn), HOST);
        return initiator.awaitHead(Nqn.of(nqn), NamespaceId.of(1), Duration.ofSeconds(30));
    }

    private void disconnectAll(String nqn) throws Exception {
        for (String controller : initiator.controllersOf(Nqn.of(nqn))) {
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

    /** Starts the agent from its module path, as deployed, and waits until it reports ready. */
    private void startAgent(Path config) throws Exception {
        Path module = Path.of("modules/pillar.agent/target").toAbsolutePath();
        Path jar;
        try (Stream<Path> jars = Files.list(module)) {
            jar = jars.filter(p -> p.getFileName().toString().matches("pillar\\.agent-.*\\.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no pillar.agent jar in " + module
                            + ": package the project first (dev/test runs ./mvnw install)"));
        }
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        long start = System.nanoTime();
        agent = new ProcessBuilder(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "--enable-native-access=io.grpc.netty.shaded", "-p", module.resolve("modules") + ":" + jar,
                "--add-modules", "ALL-MODULE-PATH", "-m", "pillar.agent/pillar.agent.AgentMain", "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile()).start();
        URI ready = URI.create("http://127.0.0.1:19810/observe/health/ready");
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (status(ready) != 200) {
            if (!agent.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the agent did not become ready; its log:\n"
                        + Files.readString(dir.resolve("agent.log")));
            }
            Thread.sleep(200);
        }
        timings.add("agent start to ready: " + (System.nanoTime() - start) / 1_000_000 + " ms");
        if (channel != null) {
            channel.shutdownNow();
        }
        channel = Grpc.newChannelBuilderForAddress("127.0.0.1", 19500, InsecureChannelCredentials.create()).build();
        stub = AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(3, TimeUnit.MINUTES);
    }

    private static int status(URI uri) {
        try {
            HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
            connection.setConnectTimeout(1000);
            try {
                return connection.getResponseCode();
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            return -1;
        }
    }

    private <T> T timed(String what, java.util.function.Supplier<T> call) {
        long start = System.nanoTime();
        T result = call.get();
        timings.add(what + ": " + (System.nanoTime() - start) / 1_000_000 + " ms");
        return result;
    }

    private static String run(String... argv) {
        return RUNNER.run(Command.of(Duration.ofMinutes(2), argv)).stdout();
    }

    private static List<String> list(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).toList();
        }
    }

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (agent != null) {
            agent.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        if (channel != null) {
            channel.shutdownNow();
        }
        List<String> problems = new ArrayList<>();
        attempt(problems, () -> run("umount", dir.resolve("mnt").toString()));
        for (String nqn : List.of("nqn.2024-06.io.pillar-csi:pvc-thin", "nqn.2024-06.io.pillar-csi:pvc-linear")) {
            attempt(problems, () -> {
                disconnectAll(nqn);
                return null;
            });
            attempt(problems, () -> {
                new ConfigfsNvmetTarget(CONFIGFS).removeSubsystem(Nqn.of(nqn));
                return null;
            });
        }
        attempt(problems, () -> run("vgremove", "-q", "-f", VG));
        if (loop != null) {
            attempt(problems, () -> run("pvremove", "-q", loop.toString()));
            attempt(problems, () -> run("losetup", "--detach", loop.toString()));
        }
        System.out.println("[agent-kernel-it] clean-up: " + (problems.isEmpty() ? "nothing left" : problems));
    }

    private interface Step {
        Object run() throws Exception;
    }

    private static void attempt(List<String> problems, Step step) {
        try {
            step.run();
        } catch (Exception e) {
            problems.add(e.getMessage());
        }
    }
}
