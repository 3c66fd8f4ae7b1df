package pillar.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.grpc.Context;
import io.grpc.Status;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AllowInitiatorRequest;
import pillar.api.agent.v1.AllowInitiatorResponse;
import pillar.api.agent.v1.GetCapabilitiesRequest;
import pillar.api.agent.v1.GetCapacityRequest;
import pillar.runtime.server.WorkloadServer;
import pillar.testkit.TestPki;

/**
 * GrpcAgentClient against a real gRPC agent API server (Helidon, over TCP): plaintext and mutual
 * TLS, the deadline of every call, retries of reads while the agent is unreachable and of nothing
 * else, and the mapping of status codes to {@link AgentException.Kind}.
 */
class GrpcAgentClientIT {
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

    private AgentTarget plaintextAgent() {
        server = WorkloadServer.builder().tcp("127.0.0.1", 0).health("127.0.0.1", 0).service(service).start();
        return AgentTarget.plaintext("127.0.0.1", server.grpcPort());
    }

    /** A port nothing listens on (one the kernel just handed out and took back). */
    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static GrpcAgentClient.Settings settings(Duration deadline) {
        return new GrpcAgentClient.Settings(deadline, deadline, 3, Duration.ofMillis(10));
    }

    @Test
    void plaintextCallsShareOneChannelPerAgent() {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));

        assertThat(client.getCapabilities(agent, GetCapabilitiesRequest.getDefaultInstance()).getAgentVersion())
                .isEqualTo("9.9.9-test");
        assertThat(client.getCapacity(agent, GetCapacityRequest.newBuilder().setBackend("fast").build()).getAvailableBytes())
                .isEqualTo(600);
        assertThat(client.channelCount()).isEqualTo(1);
    }

    @Test
    void aCallThatOutlivesItsDeadlineFailsAsTimedOutAndIsNotRetried() {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofMillis(300)));
        service.holdCalls();

        assertThatThrownBy(() -> client.getCapabilities(agent, GetCapabilitiesRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(AgentException.Kind.TIMED_OUT);
                    assertThat(e.kind().retryable()).isTrue();
                    assertThat(e.rpc()).isEqualTo("GetCapabilities");
                    assertThat(e.getMessage()).startsWith("GetCapabilities on agent 127.0.0.1:" + server.grpcPort()
                            + " (plaintext): TIMED_OUT: DEADLINE_EXCEEDED");
                });
        service.release();
        assertThat(service.capabilityCalls.get()).isEqualTo(1);
    }

    @Test
    void aMutationRunsToItsOwnDeadlineWhateverTheCsiCallItServesDoes() throws Exception {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(),
                new GrpcAgentClient.Settings(Duration.ofMillis(200), Duration.ofSeconds(30), 3, Duration.ofMillis(10)));
        service.holdCalls();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            // the sidecar's call: its deadline passes (and cancels it) while the agent still works
            Context.CancellableContext csiCall = Context.current().withDeadlineAfter(200, TimeUnit.MILLISECONDS, timer);
            CompletableFuture<AllowInitiatorResponse> answer = new CompletableFuture<>();
            CompletableFuture.runAsync(csiCall.wrap(() -> {
                try {
                    answer.complete(client.allowInitiator(agent, AllowInitiatorRequest.newBuilder().setVolumeId("pvc-1").build()));
                } catch (RuntimeException e) {
                    answer.completeExceptionally(e);
                }
            }));
            await().atMost(Duration.ofSeconds(10)).until(csiCall::isCancelled);
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !answer.isDone());

            service.release();
            assertThat(answer.get(20, TimeUnit.SECONDS)).isNotNull();
            assertThat(service.allowCalls.get()).isEqualTo(1);
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void readsAreRetriedWhileTheAgentIsUnavailable() {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        service.failNext(Status.UNAVAILABLE.withDescription("restarting"), Status.UNAVAILABLE.withDescription("restarting"));

        assertThat(client.getCapabilities(agent, GetCapabilitiesRequest.getDefaultInstance()).getAgentVersion())
                .isEqualTo("9.9.9-test");
        assertThat(service.capabilityCalls.get()).isEqualTo(3);
    }

    @Test
    void aClosedPortIsUnreachableAfterEveryAttempt() throws Exception {
        int port = closedPort();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        AgentTarget agent = AgentTarget.plaintext("127.0.0.1", port);
        assertThatThrownBy(() -> client.getCapabilities(agent, GetCapabilitiesRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class,
                        e -> assertThat(e.kind()).isEqualTo(AgentException.Kind.UNREACHABLE));
    }

    @Test
    void anAgentBackOnItsPortIsCalledAtOnceAndNotAfterGrpcsReconnectBackoff() throws Exception {
        int port = closedPort();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        AgentTarget agent = AgentTarget.plaintext("127.0.0.1", port);
        AllowInitiatorRequest allow = AllowInitiatorRequest.newBuilder().setVolumeId("pvc-1").build();
        assertThatThrownBy(() -> client.allowInitiator(agent, allow)).isInstanceOfSatisfying(AgentException.class,
                e -> assertThat(e.kind()).isEqualTo(AgentException.Kind.UNREACHABLE));

        // the channel's connection was refused: gRPC waits out a backoff before its next attempt, and until
        // then fails calls at once with the refused connection; the agent comes back within that backoff
        server = WorkloadServer.builder().tcp("127.0.0.1", port).health("127.0.0.1", 0).service(service).start();
        client.allowInitiator(agent, allow);
        assertThat(service.allowCalls.get()).as("the mutation reached the agent that came back, at the first try").isEqualTo(1);
    }

    @ParameterizedTest
    @CsvSource({
        "INVALID_ARGUMENT, INVALID_ARGUMENT",
        "NOT_FOUND, NOT_FOUND",
        "ALREADY_EXISTS, ALREADY_EXISTS",
        "FAILED_PRECONDITION, FAILED_PRECONDITION",
        "OUT_OF_RANGE, OUT_OF_RANGE",
        "RESOURCE_EXHAUSTED, NO_SPACE",
        "ABORTED, BUSY",
        "PERMISSION_DENIED, DENIED",
        "UNAUTHENTICATED, DENIED",
        "UNIMPLEMENTED, UNSUPPORTED",
        "INTERNAL, FAILED",
        "UNKNOWN, FAILED",
    })
    void statusCodesMapToKindsAndOnlyUnavailabilityIsRetried(Status.Code code, AgentException.Kind kind) {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        service.failNext(Status.fromCode(code).withDescription("the agent says no"));

        assertThatThrownBy(() -> client.getCapabilities(agent, GetCapabilitiesRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(kind);
                    assertThat(e.detail()).isEqualTo(code + ": the agent says no");
                });
        assertThat(service.capabilityCalls.get()).isEqualTo(1);
    }

    @Test
    void theAgentsReasonArrivesTypedAndAFailureWithoutOneHasNone() {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        service.failNext(AgentErrors.failure(Status.FAILED_PRECONDITION.withDescription("an LVM linear volume group"),
                AgentErrorReason.AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED));
        service.failNext(Status.FAILED_PRECONDITION.withDescription("SnapshotsUnsupported: the words alone"));

        assertThatThrownBy(() -> client.allowInitiator(agent, AllowInitiatorRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(AgentException.Kind.FAILED_PRECONDITION);
                    assertThat(e.reason()).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED);
                    assertThat(e.detail()).isEqualTo("FAILED_PRECONDITION: an LVM linear volume group");
                });
        assertThatThrownBy(() -> client.allowInitiator(agent, AllowInitiatorRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class,
                        e -> assertThat(e.reason()).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED));
    }

    /** An agent of before GetVolumesHealth (this test server does not implement it): what ListVolumes falls back on. */
    @Test
    void getVolumesHealthOfAnAgentWithoutItIsUnsupported() {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        assertThatThrownBy(() -> client.getVolumesHealth(agent, pillar.api.agent.v1.GetVolumesHealthRequest.newBuilder()
                .addVolumes(pillar.api.agent.v1.GetVolumeHealthRequest.newBuilder().setVolumeId("pvc-1").setBackend("fast")).build()))
                .isInstanceOfSatisfying(AgentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(AgentException.Kind.UNSUPPORTED);
                    assertThat(e.rpc()).isEqualTo("GetVolumesHealth");
                });
    }

    @Test
    void adoptVolumeAnswersTheVolumeAndIsSentOnceLikeEveryChange() {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        pillar.api.agent.v1.AdoptVolumeRequest request = pillar.api.agent.v1.AdoptVolumeRequest.newBuilder()
                .setVolumeId("data-1").setBackend("fast").build();

        assertThat(client.adoptVolume(agent, request).getVolume().getSizeBytes()).isEqualTo(TestAgentService.ADOPTED_SIZE);
        service.failNext(Status.UNAVAILABLE.withDescription("restarting"));
        assertThatThrownBy(() -> client.adoptVolume(agent, request)).isInstanceOfSatisfying(AgentException.class,
                e -> assertThat(e.kind()).isEqualTo(AgentException.Kind.UNREACHABLE));
        assertThat(service.adoptCalls.get()).isEqualTo(2);
    }

    @Test
    void adoptVolumesRefusalsArriveWithTheirReasonAndAnOlderAgentIsUnsupported() {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        pillar.api.agent.v1.AdoptVolumeRequest request = pillar.api.agent.v1.AdoptVolumeRequest.newBuilder()
                .setVolumeId("data-1").setBackend("fast").build();
        service.failNext(AgentErrors.failure(Status.FAILED_PRECONDITION.withDescription("volume data-1 is mounted"),
                AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE));

        assertThatThrownBy(() -> client.adoptVolume(agent, request)).isInstanceOfSatisfying(AgentException.class, e -> {
            assertThat(e.kind()).isEqualTo(AgentException.Kind.FAILED_PRECONDITION);
            assertThat(e.reason()).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE);
        });
        service.withoutAdoptVolume();
        assertThatThrownBy(() -> client.adoptVolume(agent, request)).isInstanceOfSatisfying(AgentException.class, e -> {
            assertThat(e.kind()).isEqualTo(AgentException.Kind.UNSUPPORTED);
            assertThat(e.rpc()).isEqualTo("AdoptVolume");
        });
    }

    @Test
    void anUnknownBackendIsTheAgentsInvalidArgument() {
        AgentTarget agent = plaintextAgent();
        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        assertThatThrownBy(() -> client.getCapacity(agent, GetCapacityRequest.newBuilder().setBackend("slow").build()))
                .isInstanceOfSatisfying(AgentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(AgentException.Kind.INVALID_ARGUMENT);
                    assertThat(e.detail()).contains("'slow' is not configured on this agent");
                });
    }

    @Test
    void mutualTlsReachesAnAgentOfTheSameCaOnly() throws Exception {
        TestPki trusted = new TestPki(dir, "trusted");
        TestPki stranger = new TestPki(dir, "stranger");
        server = WorkloadServer.builder().tcp("127.0.0.1", 0).health("127.0.0.1", 0).service(service)
                .tls(Tls.builder().sslContext(trusted.serverContext("agent", "localhost")).clientAuth(TlsClientAuth.REQUIRED).build())
                .start();
        AgentTarget agent = new AgentTarget("127.0.0.1", server.grpcPort(), AgentTarget.Security.MUTUAL_TLS, Optional.empty());

        client = new GrpcAgentClient(Optional.of(TestAgentTls.issue(trusted, "controller", "localhost")), settings(Duration.ofSeconds(20)));
        assertThat(client.getCapabilities(agent, GetCapabilitiesRequest.getDefaultInstance()).getAgentVersion())
                .isEqualTo("9.9.9-test");
        client.close();

        client = new GrpcAgentClient(Optional.of(TestAgentTls.issue(stranger, "controller", "localhost")), settings(Duration.ofSeconds(20)));
        assertThatThrownBy(() -> client.getCapabilities(agent, GetCapabilitiesRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class,
                        e -> assertThat(e.kind()).isEqualTo(AgentException.Kind.UNREACHABLE));
        client.close();

        client = new GrpcAgentClient(Optional.empty(), settings(Duration.ofSeconds(20)));
        assertThatThrownBy(() -> client.getCapabilities(agent, GetCapabilitiesRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(AgentException.class, e -> {
                    assertThat(e.kind()).isEqualTo(AgentException.Kind.FAILED);
                    assertThat(e.detail()).contains("no agents.tls files");
                });
    }

    @Test
    void unreadableTlsFilesAreRefusedAtConstruction() throws Exception {
        Path junk = dir.resolve("junk.pem");
        java.nio.file.Files.writeString(junk, "not a certificate");
        assertThatThrownBy(() -> new GrpcAgentClient(Optional.of(new AgentTlsFiles(junk, junk, junk)),
                settings(Duration.ofSeconds(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("agents.tls: cannot read the certificate, key or CA: ").hasMessageContaining("junk.pem");
    }
}
