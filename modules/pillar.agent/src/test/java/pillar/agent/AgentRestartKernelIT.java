package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.VmBed.CONFIGFS;
import static pillar.agent.VmBed.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.configfs.BlockWrites;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.agent.configfs.FabricsInitiator;
import pillar.agent.configfs.NamespaceId;
import pillar.agent.configfs.PortAddress;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * Restarting the agent is hitless (real kernel, qemu VM): nvmet lives in the kernel, so a host's I/O
 * does not depend on the agent process. A writer on the initiator side makes O_DIRECT 4 KiB writes,
 * each synced to the device, to an exported thin LV while the agent is SIGKILLed and restarted (twice
 * with {@code PILLAR_SUITE_MATRIX=full}: the second proves nothing the first did not), then SIGKILLed
 * once more in the middle of re-applying its 25 exports and started again. Every write
 * succeeds, writes complete while the agent is down, every block reads back with the content last
 * written to it, and the longest time between two completed writes is printed.
 */
class AgentRestartKernelIT {
    private static final long MIB = 1L << 20;
    private static final int IDLE_EXPORTS = 24;
    private static final String VG = "pillarrestartvg";
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:2d6f1c0a-5b3e-4a7d-9c8f-1e2d3c4b5a69");
    private static final PortAddress TARGET = PortAddress.tcp("127.0.0.1", 4420);
    private static final String WRITER_VOLUME = "pvc-restart-writer";

    @TempDir
    Path dir;

    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final LifecycleUid life = LifecycleUid.random();
    private final List<String> volumes = new ArrayList<>();
    private AgentProcess agent;
    private Path loop;
    private ContinuousWriter writer;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(false);
    }

    @Test
    void aHostWritesWithoutAnErrorOrALostWriteWhileTheAgentIsKilledAndRestarted() throws Exception {
        loop = VmBed.loopDevice(dir, "pv", 1024 * MIB);
        VmBed.volumeGroup(VG, loop, "512m");
        Path config = AgentProcess.writeConfig(dir.resolve("agent.yaml"), 19501, 19811, dir.resolve("state"), List.of(),
                "{name: thin, type: lvm-thin, volume-group: " + VG + ", thin-pool: pool0}");
        agent = new AgentProcess(dir, 19501, 19811);
        agent.start(config);
        createAndExport(WRITER_VOLUME, 64 * MIB);
        agent.stub().allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId(WRITER_VOLUME)
                .setHostNqn(HOST.value()).build());
        for (int i = 0; i < IDLE_EXPORTS; i++) {
            createAndExport("pvc-restart-idle-%02d".formatted(i), 4 * MIB);
        }
        initiator.connect(TARGET, nqn(WRITER_VOLUME), HOST);
        Path device = initiator.awaitHead(nqn(WRITER_VOLUME), NamespaceId.of(1), Duration.ofSeconds(30));
        writer = new ContinuousWriter(device, Files.createDirectories(dir.resolve("blocks")), (int) (64 * MIB / BlockWrites.BLOCK));
        writer.start();
        writer.awaitWrites(20);

        List<String> report = new ArrayList<>();
        int plainRestarts = "full".equals(System.getenv("PILLAR_SUITE_MATRIX")) ? 2 : 1;
        for (int restart = 1; restart <= plainRestarts; restart++) {
            long before = writer.completed();
            agent.kill();
            Duration ready = agent.start(config);
            assertThat(agent.log()).contains("re-applied " + (IDLE_EXPORTS + 1) + " of " + (IDLE_EXPORTS + 1) + " exports");
            report.add("restart " + restart + ": ready after " + ready.toMillis() + " ms, "
                    + (writer.completed() - before) + " writes completed meanwhile");
            assertThat(writer.completed()).as("writes completed while the agent was down and starting").isGreaterThan(before);
        }
        long before = writer.completed();
        agent.kill();
        killDuringReapply(config);
        Duration ready = agent.start(config);
        report.add("killed while re-applying, then ready after " + ready.toMillis() + " ms, "
                + (writer.completed() - before) + " writes completed meanwhile");
        assertThat(writer.completed()).isGreaterThan(before);
        writer.awaitWrites(writer.completed() + 20);
        writer.stop();

        assertThat(writer.failure()).as("an I/O error during the restarts").isNull();
        int verified = writer.verify();
        System.out.println("[restart-kernel-it] " + writer.completed() + " O_DIRECT writes, " + verified
                + " blocks read back equal, longest stall between two completed writes "
                + writer.longestStall().toMillis() + " ms");
        report.forEach(line -> System.out.println("[restart-kernel-it]   " + line));
        assertThat(verified).isPositive();
    }

    /** Starts the agent, kills it once its log says it is re-applying, and checks that it had not finished. */
    private void killDuringReapply(Path config) throws Exception {
        agent.launchOnly(config);
        String started = "re-applying " + (IDLE_EXPORTS + 1) + " exports";
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        while (!agent.log().contains(started)) {
            assertThat(System.nanoTime()).as("the agent never logged '%s'; its log:%n%s", started, agent.log())
                    .isLessThan(deadline);
            Thread.sleep(20);
        }
        agent.kill();
        assertThat(agent.log()).as("killed before the re-apply had finished").doesNotContain("re-applied ");
    }

    private void createAndExport(String volume, long bytes) {
        agent.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(volume).setBackend("thin")
                .setSizeBytes(bytes).build());
        volumes.add(volume);
        agent.stub().exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId(volume).setBackend("thin")
                .setExport(ExportSpec.newBuilder().setBindAddress(TARGET.traddr()).setPort(TARGET.trsvcid()).setAclEnabled(true))
                .build());
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(life, 1).toProto();
    }

    private static Nqn nqn(String volume) {
        return Nqn.of("nqn.2024-06.io.pillar-csi:" + volume);
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (writer != null) {
            writer.halt();
        }
        if (agent != null) {
            agent.close();
        }
        List<VmBed.Step> steps = new ArrayList<>();
        steps.add(() -> {
            for (String controller : initiator.controllersOf(nqn(WRITER_VOLUME))) {
                initiator.disconnect(controller, Duration.ofSeconds(30));
            }
        });
        ConfigfsNvmetTarget kernel = new ConfigfsNvmetTarget(CONFIGFS);
        for (String volume : volumes) {
            steps.add(() -> kernel.removeSubsystem(nqn(volume)));
        }
        steps.add(() -> run("vgremove", "-q", "-f", VG));
        if (loop != null) {
            steps.add(() -> run("pvremove", "-q", loop.toString()));
            steps.add(() -> run("losetup", "--detach", loop.toString()));
        }
        List<String> problems = VmBed.cleanUp(steps.toArray(VmBed.Step[]::new));
        System.out.println("[restart-kernel-it] clean-up: " + (problems.isEmpty() ? "nothing left" : problems));
    }
}
