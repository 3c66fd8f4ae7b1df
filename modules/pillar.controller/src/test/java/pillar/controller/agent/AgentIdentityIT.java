package pillar.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.runtime.server.WorkloadServer;
import pillar.testkit.TestPki;

/**
 * One identity per storage node, over real mutual TLS: the controller verifies the name of the
 * PillarAgent it dials ({@code tls.serverName}, as the chart writes {@code <node>.pillar-agent}), so
 * an agent presenting another storage node's certificate, valid and from the same CA, is refused in
 * the handshake before any call reaches it; its own certificate passes. A PillarAgent verified by the
 * controller's own name is refused without dialling.
 */
class AgentIdentityIT {
    private static final String STORAGE_1 = "storage-1.pillar-agent";
    private static final String STORAGE_2 = "storage-2.pillar-agent";

    @TempDir
    Path dir;

    private final TestAgentService service = new TestAgentService();
    private WorkloadServer server;
    private GrpcAgentClient client;

    @AfterEach
    void stop() {
        service.release();
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** An agent on 127.0.0.1 presenting a certificate of the CA for {@code name} (and 127.0.0.1). */
    private int agentPresenting(TestPki pki, String name) throws Exception {
        server = WorkloadServer.builder().tcp("127.0.0.1", 0).health("127.0.0.1", 0).service(service)
                .tls(Tls.builder().sslContext(pki.serverContext(name, name)).clientAuth(TlsClientAuth.REQUIRED).build())
                .start();
        return server.grpcPort();
    }

    private static AgentTarget target(int port, String serverName) {
        return new AgentTarget("127.0.0.1", port, AgentTarget.Security.MUTUAL_TLS, Optional.of(serverName));
    }

    private static GrpcAgentClient.Settings settings() {
        return new GrpcAgentClient.Settings(Duration.ofSeconds(20), Duration.ofSeconds(20), 1, Duration.ofMillis(10));
    }

    @Test
    void anotherStorageNodesCertificateIsRefusedAndTheAgentsOwnPasses() throws Exception {
        TestPki pki = new TestPki(dir, "cluster");
        int port = agentPresenting(pki, STORAGE_2);
        client = new GrpcAgentClient(Optional.of(TestAgentTls.issue(pki, "controller", "pillar-controller")), settings());

        // storage-2's agent (or whoever holds its key) answering where storage-1 is dialled
        assertThatThrownBy(() -> client.allowInitiator(target(port, STORAGE_1), AllowInitiatorRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(AgentException.Kind.UNREACHABLE);
                    assertThat(e.getMessage()).contains("the agent's certificate was refused: No subject alternative DNS name"
                            + " matching " + STORAGE_1 + " found");
                });
        assertThatThrownBy(() -> client.getCapabilities(target(port, STORAGE_1), GetCapabilitiesRequest.getDefaultInstance()))
                .isInstanceOf(AgentException.class);
        assertThat(service.allowCalls.get() + service.capabilityCalls.get()).as("calls that reached the agent").isZero();

        // the same agent dialled as itself
        assertThat(client.getCapabilities(target(port, STORAGE_2), GetCapabilitiesRequest.getDefaultInstance())
                .getAgentVersion()).isEqualTo("9.9.9-test");
        client.allowInitiator(target(port, STORAGE_2), AllowInitiatorRequest.getDefaultInstance());
        assertThat(service.allowCalls.get()).isEqualTo(1);
    }

    @Test
    void anAgentVerifiedByTheControllersOwnNameIsNotDialled() throws Exception {
        TestPki pki = new TestPki(dir, "cluster");
        int port = agentPresenting(pki, "pillar-controller");
        client = new GrpcAgentClient(Optional.of(TestAgentTls.issue(pki, "controller", "pillar-controller")), settings());

        assertThatThrownBy(() -> client.getCapabilities(target(port, "pillar-controller"), GetCapabilitiesRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(AgentException.Kind.FAILED);
                    assertThat(e.getMessage()).contains("pillar-controller").contains("controller's own certificate")
                            .contains("tls.serverName");
                });
        assertThat(client.channelCount()).as("channels opened").isZero();
    }
}
