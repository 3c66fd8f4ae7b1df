package pillar.agent.service;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import pillar.agent.AgentMain;
import pillar.agent.backend.Backends;
import pillar.agent.backend.lvm.FakeLvm;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.configfs.NvmetTarget;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.WorkloadServer;

/**
 * A plaintext agent on 127.0.0.1 with one LVM thin backend {@code fast} (vg0/pool0 of a {@link FakeLvm})
 * and a fake configfs, and a blocking client of it with a 60 s deadline: the bed of the agent's
 * service tests over real gRPC. Its metrics are disabled, so no store gauges' refresher runs commands
 * of its own in the middle of the tests' counts of the commands a call runs.
 */
record FakeThinAgent(WorkloadServer agent, ManagedChannel channel, AgentServiceGrpc.AgentServiceBlockingStub stub) {
    static FakeThinAgent start(Path stateDir, FakeConfigfsTree configfs, FakeLvm lvm) {
        List<BackendConfig> backends = List.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0"));
        AgentConfig config = new AgentConfig("127.0.0.1", 0, stateDir, configfs.root(), Optional.empty(), backends, "127.0.0.1", 0);
        NvmetTarget target = configfs.target();
        WorkloadServer agent = AgentMain.start(config, Backends.create(backends, lvm, lvm.host()), target,
                AgentMain.checkState(config, target), WorkloadMetrics.disabled("agent"));
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", agent.grpcPort(), InsecureChannelCredentials.create())
                .build();
        return new FakeThinAgent(agent, channel, AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS));
    }
}
