package pillar.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.concurrent.TimeUnit;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.csi.v1.ControllerGetCapabilitiesRequest;
import pillar.api.csi.v1.ControllerGrpc;
import pillar.api.csi.v1.ControllerServiceCapability;
import pillar.api.csi.v1.CreateSnapshotRequest;
import pillar.api.csi.v1.GetPluginCapabilitiesRequest;
import pillar.api.csi.v1.IdentityGrpc;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGrpc;
import pillar.api.csi.v1.PluginCapability;
import pillar.api.csi.v1.ProbeRequest;
import pillar.runtime.server.Channels;
import pillar.runtime.server.WorkloadConfig;
import pillar.controller.agent.FakeAgentClient;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.MockApi;
import pillar.controller.reconcile.MockServers;

/**
 * The controller workload as started by its main, configured from a YAML file, against the mock
 * API server: CSI over its real socket, readiness over HTTP once the informers have synced.
 */
class ControllerMainIT {
    @TempDir
    Path dir;

    private KubernetesMockServer server;
    private KubernetesClient client;

    @BeforeEach
    void apiServer() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(),
                false);
        server.init();
        client = server.createClient(new JdkHttpClientFactory());
        MockApi.installCrds(client);
    }

    @AfterEach
    void stopApiServer() {
        client.close();
        MockServers.destroy(server);
    }

    @Test
    void servesIdentityWithTheControllerCapabilityAndGetsReadyOnceSynced() throws Exception {
        Path socket = dir.resolve("csi.sock");
        Path file = dir.resolve("controller.yaml");
        Files.writeString(file, "csi:\n  socket: " + socket + "\nhealth:\n  host: 127.0.0.1\n  port: 0\n"
                + "controller:\n  namespace: pillar-system\n  poll-interval: 1s\n");
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load("--config", file.toString()));
        try (ControllerWorkload workload = ControllerMain.start(config, client, new FakeAgentClient())) {
            await().atMost(ControllerHarness.PATIENCE).until(() -> ready(workload.server().healthPort()) == 200);

            ManagedChannel channel = Channels.unix(socket);
            try {
                assertThat(IdentityGrpc.newBlockingStub(channel)
                        .getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
                        .containsExactly(PluginCapability.newBuilder().setService(PluginCapability.Service.newBuilder()
                                        .setType(PluginCapability.Service.Type.CONTROLLER_SERVICE)).build(),
                                PluginCapability.newBuilder().setService(PluginCapability.Service.newBuilder()
                                        .setType(PluginCapability.Service.Type.VOLUME_ACCESSIBILITY_CONSTRAINTS)).build(),
                                PluginCapability.newBuilder().setVolumeExpansion(PluginCapability.VolumeExpansion.newBuilder()
                                        .setType(PluginCapability.VolumeExpansion.Type.ONLINE)).build());
                assertThat(IdentityGrpc.newBlockingStub(channel).probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
                        .isTrue();
                assertThat(ControllerGrpc.newBlockingStub(channel)
                        .controllerGetCapabilities(ControllerGetCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList())
                        .extracting(c -> c.getRpc().getType()).contains(ControllerServiceCapability.RPC.Type.CREATE_DELETE_VOLUME);
                // snapshots are served (an empty request is refused on its merits); the Node service is not
                assertThatThrownBy(() -> ControllerGrpc.newBlockingStub(channel).createSnapshot(CreateSnapshotRequest.getDefaultInstance()))
                        .isInstanceOfSatisfying(StatusRuntimeException.class,
                                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
                assertUnimplemented(() -> NodeGrpc.newBlockingStub(channel).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()));
            } finally {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void commandLineOverridesTheFile() throws Exception {
        Path file = dir.resolve("controller.yaml");
        Files.writeString(file, "csi:\n  socket: /from/file.sock\n");
        assertThat(ControllerConfig.from(WorkloadConfig.load("--config", file.toString())).endpoint().socket())
                .hasToString("/from/file.sock");
        assertThat(ControllerConfig.from(WorkloadConfig.load("--config", file.toString(), "--csi.socket=/from/flag.sock"))
                .endpoint().socket()).hasToString("/from/flag.sock");
    }

    @Test
    void aKubeconfigFileNamesTheApiServer() throws Exception {
        Path kubeconfig = dir.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters:
                - name: sandbox
                  cluster: {server: "%s"}
                users:
                - name: sandbox
                  user: {token: "not-a-secret"}
                contexts:
                - name: sandbox
                  context: {cluster: sandbox, user: sandbox, namespace: pillar-system}
                current-context: sandbox
                """.formatted(client.getMasterUrl().toString()));
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load("--kubernetes.kubeconfig=" + kubeconfig));
        assertThat(config.kubeconfig()).contains(kubeconfig);
        try (KubernetesClient fromFile = KubernetesClients.create(config.kubeconfig(), config.context(), config.metrics())) {
            assertThat(fromFile.getMasterUrl()).isEqualTo(client.getMasterUrl());
            assertThat(fromFile.getNamespace()).isEqualTo("pillar-system");
            assertThat(fromFile.storage().v1().storageClasses().list().getItems()).isEmpty();
        }
        assertThat(config.metrics().scrape()).contains("pillar_controller_api_requests_total{code=\"2xx\",verb=\"GET\"} 1.0\n");
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--kubernetes.kubeconfig=" + dir.resolve("none"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kubernetes.kubeconfig");
    }

    private static int ready(int port) {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/observe/health/ready")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static void assertUnimplemented(Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
    }
}
