package pillar.controller.csi.realagent;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import pillar.agent.AgentMain;
import pillar.agent.backend.Backends;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.server.WorkloadServer;
import pillar.controller.agent.GrpcAgentClient;

/**
 * The real pillar-agent, in this process, serving its API over real gRPC on 127.0.0.1: its real
 * LVM backend on the stateful fake of the LVM tools, its real nvmet writer on the fake configfs
 * tree that behaves like kernel 6.1, its durable state (fencing marks, export records) on disk.
 * The controller reaches it through its real {@link GrpcAgentClient}.
 */
final class RealAgent implements AutoCloseable {
    static final long MIB = 1L << 20;

    final FakeLvm lvm;
    final FakeConfigfsTree configfs;
    final WorkloadServer server;
    final GrpcAgentClient client;
    private final Path devRoot;

    RealAgent(Path dir) {
        this(dir, FakeConfigfsTree.create());
    }

    /** On {@code configfs}, e.g. the fake of a 6.12 kernel (authentication, TLS ports and the {@code .nvme} keyring). */
    RealAgent(Path dir, FakeConfigfsTree configfs) {
        devRoot = dir.resolve("dev");
        lvm = new FakeLvm("vg0", 4096 * MIB, devRoot).withThinPool("pool0", 2048 * MIB);
        this.configfs = configfs;
        List<BackendConfig> backends = List.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"));
        AgentConfig config = new AgentConfig("127.0.0.1", 0, dir.resolve("agent-state"), configfs.root(), Optional.empty(),
                backends, "127.0.0.1", 0);
        server = AgentMain.start(config, Backends.create(backends, lvm, lvm.host()), configfs.target());
        client = new GrpcAgentClient(Optional.empty(), GrpcAgentClient.Settings.defaults());
    }

    int port() {
        return server.grpcPort();
    }

    /** The block device the LV of that volume gets, declared to the fake kernel so that nvmet may open it. */
    RealAgent expectVolume(String volumeId) {
        configfs.addBlockDevice(devRoot.resolve("vg0").resolve(volumeId));
        return this;
    }

    /** How many LVs the agent's lvcreate made for a volume (a retry's lvcreate that LVM refused makes none). */
    long lvcreates(String volumeId) {
        return lvm.creations(volumeId);
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
