package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.AgentMain;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.configfs.FakeConfigfsTree;
import pillar.api.agent.v1.AgentServiceGrpc;
import pillar.api.agent.v1.BackendKind;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapabilitiesResponse;
import pillar.api.server.WorkloadServer;

/** The agent API over real TCP: mTLS accepts only clients with a certificate from its CA. */
class AgentTlsIT {
    @TempDir
    static Path dir;

    static TestPki trusted;
    static TestPki stranger;

    @BeforeAll
    static void pki() throws Exception {
        trusted = new TestPki(dir, "trusted");
        stranger = new TestPki(dir, "stranger");
    }

    private static AgentConfig config(Optional<AgentConfig.TlsFiles> tls) {
        return new AgentConfig("127.0.0.1", 0, dir.resolve("state"), dir.resolve("configfs"), tls,
                List.of(new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0")), "127.0.0.1", 0);
    }

    private static GetCapabilitiesResponse call(int port, ChannelCredentials credentials) throws InterruptedException {
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port, credentials).build();
        try {
            return AgentServiceGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                    .getCapabilities(GetCapabilitiesRequest.getDefaultInstance());
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void mutualTlsAcceptsOnlyClientsOfItsCa() throws Exception {
        Path[] server = trusted.issue("agent");
        Path[] goodClient = trusted.issue("controller");
        Path[] foreignClient = stranger.issue("controller");
        AgentConfig config = config(Optional.of(new AgentConfig.TlsFiles(server[0], server[1], trusted.caFile())));
        try (WorkloadServer agent = AgentMain.start(config, Map.of(), FakeConfigfsTree.create().target())) {
            int port = agent.grpcPort();

            GetCapabilitiesResponse ok = call(port, TlsChannelCredentials.newBuilder()
                    .keyManager(goodClient[0].toFile(), goodClient[1].toFile())
                    .trustManager(trusted.caFile().toFile()).build());
            assertThat(ok.getBackendsList()).extracting(b -> b.getName()).containsExactly("fast");
            assertThat(ok.getProtocolsList()).containsExactly("nvmeof-tcp");

            assertRefused(() -> call(port, TlsChannelCredentials.newBuilder()
                    .trustManager(trusted.caFile().toFile()).build()));
            assertRefused(() -> call(port, TlsChannelCredentials.newBuilder()
                    .keyManager(foreignClient[0].toFile(), foreignClient[1].toFile())
                    .trustManager(trusted.caFile().toFile()).build()));
            // a plaintext client speaks HTTP/2 into a TLS handshake: the call fails before reaching the service
            assertThatThrownBy(() -> call(port, InsecureChannelCredentials.create()))
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode())
                            .isIn(Status.Code.UNAVAILABLE, Status.Code.INTERNAL));
        }
    }

    @Test
    void withoutTlsFilesTheAgentServesPlaintext() throws Exception {
        try (WorkloadServer agent = AgentMain.start(config(Optional.empty()), Map.of(), FakeConfigfsTree.create().target())) {
            assertThat(call(agent.grpcPort(), InsecureChannelCredentials.create()).getAgentVersion()).isNotBlank();
        }
    }

    private interface Call {
        Object run() throws Exception;
    }

    private static void assertRefused(Call call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    }
}
