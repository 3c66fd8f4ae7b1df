package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.agent.VmBed.CONFIGFS;
import static pillar.agent.VmBed.run;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.configfs.BlockWrites;
import pillar.agent.configfs.ConfigfsNvmetTarget;
import pillar.agent.configfs.FabricsInitiator;
import pillar.agent.configfs.NamespaceId;
import pillar.agent.configfs.PortAddress;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.agent.v1.ExportSpec;
import pillar.api.agent.v1.ExportVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;
import pillar.api.value.Nqn;

/**
 * Restarting the agent is hitless: nvmet lives in the kernel, and the re-apply at start-up changes
 * nothing that already matches (no port re-linked, no host dropped). A writer on the VM's initiator
 * writes sequence-numbered 4 KiB blocks with O_DIRECT and fsync ({@link BlockWrites}) without pause
 * while the agent is SIGKILLed and restarted twice, the second time with 50 more exports to re-apply;
 * no write fails, every block reads back with its checksum, and the longest write is printed.
 */
class AgentRestartKernelIT {
    private static final long MIB = 1L << 20;
    private static final String VG = "pillarrestartvg";
    private static final PortAddress TARGET = PortAddress.tcp("127.0.0.1", 4420);
    private static final int MORE_EXPORTS = 50;

    @TempDir
    Path dir;

    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final LifecycleUid life = LifecycleUid.random();
    private final List<String> ids = new ArrayList<>();
    private AgentProcess agent;
    private Path loop;

    @BeforeAll
    static void requireVm() {
        VmBed.requireVm(false);
    }

    @Test
    void aWriterSeesNoErrorAndLosesNoWriteWhileTheAgentIsKilledAndRestarted() throws Exception {
        loop = VmBed.loopDevice(dir, "pv", 1024 * MIB);
        VmBed.volumeGroup(VG, loop, "768m");
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, """
                agent:
                  listen: {host: 127.0.0.1, port: 19501}
                  state-dir: %s
                  configfs-root: /sys/kernel/config
                  backends:
                    - {name: thin, type: lvm-thin, volume-group: %s, thin-pool: pool0}
                health: {host: 127.0.0.1, port: 19811}
                """.formatted(dir.resolve("state"), VG));
        agent = new AgentProcess(dir, 19501, 19811);
        agent.start(config);
        Nqn nqn = createAndExport("pvc-writer", 64 * MIB);
        initiator.connect(TARGET, nqn, Nqn.of("nqn.2014-08.org.nvmexpress:uuid:restart-writer"));
        Path device = initiator.awaitHead(nqn, NamespaceId.of(1), Duration.ofSeconds(30));

        BlockWrites writes = new BlockWrites(Files.createDirectories(dir.resolve("blocks")));
        List<String> written = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong longest = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        long blocks = 64 * MIB / BlockWrites.BLOCK;
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (long seq = 0; !stop.get(); seq++) {
                    byte[] data = BlockWrites.block(seq, new Random(seq));
                    long start = System.nanoTime();
                    if (!writes.write(device, seq % blocks, data, Duration.ofMinutes(2))) {
                        failure.set("write " + seq + " failed");
                        return;
                    }
                    longest.accumulateAndGet(System.nanoTime() - start, Math::max);
                    synchronized (written) {
                        if (seq < blocks) {
                            written.add(BlockWrites.sha256(data));
                        } else {
                            written.set((int) (seq % blocks), BlockWrites.sha256(data));
                        }
                    }
                }
            } catch (Exception e) {
                failure.set(e.toString());
            }
        });
        long calm = awaitWrites(written, 20);

        agent.kill();
        System.out.println("[restart] agent start after SIGKILL to ready: " + agent.start(config).toMillis() + " ms");
        agent.kill();
        System.out.println("[restart] agent start after SIGKILL to ready: " + agent.start(config).toMillis() + " ms");
        for (int i = 0; i < MORE_EXPORTS; i++) {
            createAndExport("pvc-more-" + i, 4 * MIB);
        }
        agent.kill();
        Duration reapply = agent.start(config);
        System.out.println("[restart] agent start after SIGKILL, re-applying " + (MORE_EXPORTS + 1) + " exports, to ready: "
                + reapply.toMillis() + " ms");
        assertThat(agent.log()).contains("re-applied");
        awaitWrites(written, written.size() + 20);
        stop.set(true);
        writer.join(Duration.ofMinutes(2));

        assertThat(failure.get()).as("the writer's first failure").isNull();
        synchronized (written) {
            for (int i = 0; i < written.size(); i++) {
                assertThat(BlockWrites.sha256(BlockWrites.read(device, i))).as("block %d", i).isEqualTo(written.get(i));
            }
        }
        System.out.printf("[restart] %d blocks written and read back, longest write %d ms (before any restart, %d ms per"
                + " write on average)%n", written.size(), longest.get() / 1_000_000, calm / 1_000_000);
    }

    /** Waits until {@code count} blocks are written; returns the mean time per write meanwhile. */
    private static long awaitWrites(List<String> written, int count) throws InterruptedException {
        long start = System.nanoTime();
        int from;
        synchronized (written) {
            from = written.size();
        }
        long deadline = start + Duration.ofMinutes(2).toNanos();
        while (true) {
            int now;
            synchronized (written) {
                now = written.size();
            }
            if (now >= count) {
                return (System.nanoTime() - start) / Math.max(1, now - from);
            }
            assertThat(System.nanoTime()).as("the writer reaches %d blocks", count).isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private Nqn createAndExport(String id, long bytes) {
        ids.add(id);
        pillar.api.agent.v1.FencingToken token = FencingToken.of(life, 1).toProto();
        agent.stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token).setVolumeId(id).setBackend("thin")
                .setSizeBytes(bytes).build());
        return Nqn.of(agent.stub().exportVolume(ExportVolumeRequest.newBuilder().setToken(token).setVolumeId(id)
                .setBackend("thin").setExport(ExportSpec.newBuilder().setBindAddress(TARGET.traddr())
                        .setPort(TARGET.trsvcid()).setAclEnabled(false)).build()).getSubsystemNqn());
    }

    @AfterEach
    void cleanUp() throws Exception {
        if (agent != null) {
            agent.close();
        }
        List<VmBed.Step> steps = new ArrayList<>();
        for (String id : ids) {
            Nqn nqn = Nqn.of("nqn.2024-06.io.pillar-csi:" + id);
            steps.add(() -> {
                for (String controller : initiator.controllersOf(nqn)) {
                    initiator.disconnect(controller, Duration.ofSeconds(30));
                }
            });
            steps.add(() -> new ConfigfsNvmetTarget(CONFIGFS).removeSubsystem(nqn));
        }
        steps.add(() -> run("vgremove", "-q", "-f", VG));
        if (loop != null) {
            steps.add(() -> run("pvremove", "-q", loop.toString()));
            steps.add(() -> run("losetup", "--detach", loop.toString()));
        }
        List<String> problems = VmBed.cleanUp(steps.toArray(VmBed.Step[]::new));
        System.out.println("[restart] clean-up: " + (problems.isEmpty() ? "nothing left" : problems));
    }
}
