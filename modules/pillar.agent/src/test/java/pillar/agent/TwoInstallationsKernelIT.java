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
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * Two installations on one storage host never touch each other (real kernel, qemu VM): agents of
 * installations alpha and beta, each with its own volume group and state directory, export on the
 * same address. Beta's first start, with alpha's exports live, is ready (not waiting for a state
 * recovery); a host writes to alpha's volume with O_DIRECT while beta is SIGKILLed and started again:
 * every write succeeds, writes complete during beta's restart, beta's start-up leaves alpha's subsystem
 * and allowed host as they were, and every block reads back. (Restarting alpha as well would show the
 * same from the other side, and an agent's own restart is AgentRestartKernelIT's.)
 */
class TwoInstallationsKernelIT {
    private static final long MIB = 1L << 20;
    private static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:0c9f6d3e-2a41-4b8e-9d57-3f1a2b4c5d6e");
    private static final PortAddress TARGET = PortAddress.tcp("127.0.0.1", 4420);
    private static final String ALPHA_VOLUME = "pvc-alpha-written";
    private static final String BETA_VOLUME = "pvc-beta-idle";

    @TempDir
    Path dir;

    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final LifecycleUid life = LifecycleUid.random();
    private final List<Path> loops = new ArrayList<>();
    private AgentProcess alpha;
    private AgentProcess beta;
    private ContinuousWriter writer;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(false);
    }

    @Test
    void restartingOneInstallationsAgentLeavesTheOthersExportsAndIoAlone() throws Exception {
        Path alphaConfig = installation("alpha", 19531, 19831);
        Path betaConfig = installation("beta", 19532, 19832);
        alpha = new AgentProcess(Files.createDirectories(dir.resolve("alpha")), 19531, 19831);
        alpha.start(alphaConfig);
        export(alpha, ALPHA_VOLUME);
        initiator.connect(TARGET, nqn(ALPHA_VOLUME), HOST);
        Path device = initiator.awaitHead(nqn(ALPHA_VOLUME), NamespaceId.of(1), Duration.ofSeconds(30));
        writer = new ContinuousWriter(device, Files.createDirectories(dir.resolve("blocks")), (int) (16 * MIB / BlockWrites.BLOCK));
        writer.start();
        writer.awaitWrites(20);

        beta = new AgentProcess(Files.createDirectories(dir.resolve("beta")), 19532, 19832);
        beta.start(betaConfig);
        assertThat(beta.stub().getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).hasProblem())
                .as("beta's first start with alpha's exports live: ready, no state to recover").isFalse();
        export(beta, BETA_VOLUME);

        long before = writer.completed();
        beta.kill();
        beta.start(betaConfig);
        assertThat(writer.completed()).as("alpha's writes completed while beta restarted").isGreaterThan(before);
        assertExported(ALPHA_VOLUME, "beta's start-up");
        assertExported(BETA_VOLUME, "beta's start-up");

        writer.awaitWrites(writer.completed() + 20);
        writer.stop();

        assertThat(writer.failure()).as("an I/O error on alpha's volume").isNull();
        int verified = writer.verify();
        System.out.println("[two-installations] " + writer.completed() + " O_DIRECT writes to alpha's volume, " + verified
                + " blocks read back equal, longest stall " + writer.longestStall().toMillis() + " ms");
        assertThat(beta.log()).contains("left 1 subsystems of another installation");
    }

    /** A volume group and an agent configuration of the installation {@code name}, in a state directory of its own. */
    private Path installation(String name, int grpcPort, int healthPort) throws Exception {
        Path loop = VmBed.loopDevice(dir, name, 256 * MIB);
        loops.add(loop);
        VmBed.volumeGroup(vg(name), loop, "128m");
        Path config = dir.resolve(name + ".yaml");
        AgentProcess.writeConfig(config, grpcPort, healthPort,
                dir.resolve(name + "-state"), List.of("installation-id: " + name),
                "{name: thin, type: lvm-thin, volume-group: " + vg(name) + ", thin-pool: pool0}");
        return config;
    }

    private void export(AgentProcess agent, String volume) {
        agent.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(volume).setBackend("thin")
                .setSizeBytes(16 * MIB).build());
        agent.stub().exportVolume(ExportVolumeRequest.newBuilder().setToken(token()).setVolumeId(volume).setBackend("thin")
                .setExport(ExportSpec.newBuilder().setBindAddress(TARGET.traddr()).setPort(TARGET.trsvcid()).setAclEnabled(true))
                .build());
        agent.stub().allowInitiator(AllowInitiatorRequest.newBuilder().setToken(token()).setVolumeId(volume)
                .setHostNqn(HOST.value()).build());
    }

    private static void assertExported(String volume, String after) throws Exception {
        Path subsystem = CONFIGFS.resolve("nvmet/subsystems").resolve(nqn(volume).value());
        assertThat(subsystem).as("%s's subsystem after %s", volume, after).isDirectory();
        assertThat(subsystem.resolve("allowed_hosts").resolve(HOST.value())).as("its allowed host after %s", after).exists();
    }

    private pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(life, 1).toProto();
    }

    private static Nqn nqn(String volume) {
        return Nqn.of("nqn.2024-06.io.pillar-csi:" + volume);
    }

    private static String vg(String installation) {
        return "pillar" + installation + "vg";
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (writer != null) {
            writer.halt();
        }
        for (AgentProcess agent : new AgentProcess[] {alpha, beta}) {
            if (agent != null) {
                agent.close();
            }
        }
        List<VmBed.Step> steps = new ArrayList<>();
        steps.add(() -> {
            for (String controller : initiator.controllersOf(nqn(ALPHA_VOLUME))) {
                initiator.disconnect(controller, Duration.ofSeconds(30));
            }
        });
        ConfigfsNvmetTarget kernel = new ConfigfsNvmetTarget(CONFIGFS);
        steps.add(() -> kernel.removeSubsystem(nqn(ALPHA_VOLUME)));
        steps.add(() -> kernel.removeSubsystem(nqn(BETA_VOLUME)));
        for (String name : List.of("alpha", "beta")) {
            steps.add(() -> run("vgremove", "-q", "-f", vg(name)));
        }
        for (Path loop : loops) {
            steps.add(() -> run("pvremove", "-q", loop.toString()));
            steps.add(() -> run("losetup", "--detach", loop.toString()));
        }
        List<String> problems = VmBed.cleanUp(steps.toArray(VmBed.Step[]::new));
        assertThat(problems).as("clean-up").isEmpty();
    }
}
