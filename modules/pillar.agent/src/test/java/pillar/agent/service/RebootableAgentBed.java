package pillar.agent.service;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.CreateVolumeRequest;
import pillar.api.fencing.FencingToken;
import pillar.api.value.LifecycleUid;

/**
 * A storage node whose kernel a test picks at each start: one {@link FakeLvm} (vg0/pool0, backend
 * {@code fast}) and the agent's state under {@code dir} outlive the agents, each started on the fake configfs
 * it is given ({@link FakeThinAgent}), so a start on a fresh tree after {@link #stop} is a reboot. Calls go
 * through {@link #stub} with the tokens of one lifecycle; {@link #stop} is idempotent and the test calls it.
 */
final class RebootableAgentBed {
    static final long MIB = 1L << 20;

    private final Path dir;
    private final FakeLvm lvm;
    private final LifecycleUid lifecycle = LifecycleUid.random();
    private FakeConfigfsTree configfs;
    private FakeThinAgent agent;

    RebootableAgentBed(Path dir) {
        this.dir = dir;
        this.lvm = new FakeLvm("vg0", 1024 * MIB, dir.resolve("dev")).withThinPool("pool0", 512 * MIB);
    }

    /** Starts an agent on {@code kernel}; the one before must be stopped. */
    void start(FakeConfigfsTree kernel) {
        configfs = kernel;
        agent = FakeThinAgent.start(dir.resolve("state"), configfs, lvm);
    }

    /** Stops the agent and closes the channel to it, if it runs. */
    void stop() throws InterruptedException {
        if (agent != null) {
            agent.channel().shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            agent.agent().close();
            agent = null;
        }
    }

    /** The configfs the running agent was started on. */
    FakeConfigfsTree configfs() {
        return configfs;
    }

    /** The client of the running agent (its deadline counts from the start). */
    AgentServiceGrpc.AgentServiceBlockingStub stub() {
        return agent.stub();
    }

    /** A token of the bed's lifecycle, generation 0. */
    pillar.api.agent.v1.FencingToken token() {
        return FencingToken.of(lifecycle, 0).toProto();
    }

    /** Creates a 64 MiB volume on {@code fast} and declares its device to the configfs, so that it can be exported. */
    void create(String volumeId) {
        var volume = stub().createVolume(CreateVolumeRequest.newBuilder().setToken(token()).setVolumeId(volumeId)
                .setBackend("fast").setSizeBytes(64 * MIB).build()).getVolume();
        configfs.addBlockDevice(Path.of(volume.getDevicePath()));
    }
}
