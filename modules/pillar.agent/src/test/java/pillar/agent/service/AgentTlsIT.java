package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.agent.configfs.NvmetTarget;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.WorkloadServer;
import pillar.testkit.TestPki;

/**
 * The agent API over real TCP with mTLS admits only the controller: a client certificate from its
 * CA that names {@code pillar-controller} (agent.tls.client-names). Any other client fails in the
 * handshake, so no call reaches the agent's backend.
 */
class AgentTlsIT {
    static final String CONTROLLER = "pillar-controller";

    @TempDir
    static Path dir;

    static TestPki trusted;
    static TestPki stranger;
    static CountingBackend backend = new CountingBackend("fast");
    static WorkloadServer agent;

    @BeforeAll
    static void agent() throws Exception {
        trusted = new TestPki(dir, "trusted");
        stranger = new TestPki(dir, "stranger");
        TestPki.Issued server = trusted.issue("agent", Instant.now().plus(Duration.ofDays(1)), "localhost");
        AgentConfig config = config(dir, Optional.of(new AgentConfig.TlsFiles(server.cert(), server.key(), trusted.caFile(),
                List.of(CONTROLLER))));
        NvmetTarget target = FakeConfigfsTree.create().target();
        // metrics off: the store gauges' refresher would read the backend too, in the middle of a count of calls
        agent = AgentMain.start(config, Map.of("fast", backend), target, AgentMain.checkState(config, target),
                WorkloadMetrics.disabled("agent"));
    }

    @AfterAll
    static void stop() {
        agent.close();
    }

    static AgentConfig config(Path dir, Optional<AgentConfig.TlsFiles> tls) {
        return new AgentConfig("127.0.0.1", 0, dir.resolve("state"), dir.resolve("configfs"), tls,
                List.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0")), "127.0.0.1", 0);
    }

    /** One GetCapacity call on a new channel (so a new handshake), the answer's available bytes. */
    static long call(int port, ChannelCredentials credentials) throws InterruptedException {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port, credentials).build();
        try {
            return AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                    .getCapacity(GetCapacityRequest.newBuilder().setBackend("fast").build()).getAvailableBytes();
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    static ChannelCredentials client(TestPki.Issued identity, Path ca) throws Exception {
        return TlsChannelCredentials.newBuilder().keyManager(identity.cert().toFile(), identity.key().toFile())
                .trustManager(ca.toFile()).build();
    }

    @Test
    void theControllerIsAdmitted() throws Exception {
        TestPki.Issued controller = trusted.issue("controller", Instant.now().plus(Duration.ofDays(1)), CONTROLLER);
        int before = backend.calls.get();
        assertThat(call(agent.grpcPort(), client(controller, trusted.caFile()))).isEqualTo(512L << 20);
        assertThat(backend.calls.get()).isEqualTo(before + 1);
    }

    @Test
    void everyOtherClientIsRefusedInTheHandshake() throws Exception {
        Instant tomorrow = Instant.now().plus(Duration.ofDays(1));
        TestPki.Issued node = trusted.issue("node", tomorrow, "pillar-node", "localhost");
        TestPki.Issued nameInCommonNameOnly = trusted.issue(CONTROLLER, tomorrow);
        TestPki.Issued foreign = stranger.issue("controller", tomorrow, CONTROLLER);
        TestPki.Issued expired = trusted.issue("expired", Instant.now().minus(Duration.ofMinutes(5)), CONTROLLER);
        int port = agent.grpcPort();
        int before = backend.calls.get();

        assertRefused(() -> call(port, client(node, trusted.caFile())));
        assertRefused(() -> call(port, client(nameInCommonNameOnly, trusted.caFile())));
        assertRefused(() -> call(port, client(foreign, trusted.caFile())));
        assertRefused(() -> call(port, client(expired, trusted.caFile())));
        assertRefused(() -> call(port, TlsChannelCredentials.newBuilder().trustManager(trusted.caFile().toFile()).build()));
        // a plaintext client speaks HTTP/2 into a TLS handshake: the call fails before reaching the service
        assertThatThrownBy(() -> call(port, InsecureChannelCredentials.create()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
                        .isIn(Status.Code.UNAVAILABLE, Status.Code.INTERNAL));
        assertThat(backend.calls.get()).as("calls that reached the backend").isEqualTo(before);
    }

    @Test
    void withoutTlsFilesTheAgentServesPlaintext() throws Exception {
        CountingBackend plain = new CountingBackend("fast");
        try (WorkloadServer open = AgentMain.start(config(dir, Optional.empty()), Map.of("fast", plain),
                FakeConfigfsTree.create().target())) {
            assertThat(call(open.grpcPort(), InsecureChannelCredentials.create())).isEqualTo(512L << 20);
        }
    }

    interface Call {
        Object run() throws Exception;
    }

    static void assertRefused(Call call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(Status.Code.UNAVAILABLE));
    }
}
