package pillar.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The emulated API as the controller meets it (through the kubeconfig it writes), and the wait for
 * the quickstart's conditions: a clear failure naming what never turned True, and a return with the
 * generated StorageClass once a controller (here the test, writing status) has done its part.
 */
class KubeApiIT {
    @TempDir
    Path dir;

    private KubeApi api;
    private KubernetesClient asController;
    private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);

    @BeforeEach
    void start() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        api = KubeApi.start(port, dir.resolve("kubeconfig"), Path.of("../../helm/pillar-csi/crds"));
        asController = new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(Files.readString(dir.resolve("kubeconfig"))))
                .withHttpClientFactory(new JdkHttpClientFactory()).build();
    }

    @AfterEach
    void stop() {
        asController.close();
        api.close();
    }

    @Test
    void servesTheChartsCrdsThroughTheKubeconfigItWrites() {
        assertThat(api.crds()).containsExactly("pillaragents.pillar.csi.io", "pillarprotocols.pillar.csi.io",
                "pillarsnapshotstates.pillar.csi.io", "pillarstorageclasses.pillar.csi.io", "pillarstores.pillar.csi.io",
                "pillarvolumestates.pillar.csi.io", "volumesnapshotclasses.snapshot.storage.k8s.io");
        assertThat(asController.supports("snapshot.storage.k8s.io/v1", "VolumeSnapshotClass"))
                .as("discovery serves the external-snapshotter's class, as a cluster with snapshots does").isTrue();
        assertThat(asController.getNamespace()).isEqualTo("pillar-system");
        List<GenericKubernetesResource> quickstart = SandboxObjects.load(Path.of("../../examples/sandbox/quickstart.yaml"));
        Quickstart.create(api.client(), quickstart, out);
        assertThat(asController.genericKubernetesResources("pillar.csi.io/v1alpha1", "PillarStore").list().getItems())
                .extracting(o -> o.getMetadata().getName()).containsExactly("fast");
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("created PillarStore/fast");
        // the warm-up objects are gone
        assertThat(asController.genericKubernetesResources("pillar.csi.io/v1alpha1", "PillarAgent").list().getItems())
                .extracting(o -> o.getMetadata().getName()).containsExactly("storage-1");
    }

    @Test
    void countsTheRequestsItServesAndTheTimeSpentOnThem() throws Exception {
        long[] before = requests();
        var classes = asController.storage().v1().storageClasses();
        classes.list();
        classes.withName("absent").get();
        classes.resource(new StorageClassBuilder().withNewMetadata().withName("counted")
                .endMetadata().withProvisioner("pillar.csi.io").build()).create();
        long[] after = requests();
        assertThat(after[0] - before[0]).as("requests served between the two reads").isEqualTo(3);
        assertThat(after[1]).isGreaterThan(before[1]);
    }

    private long[] requests() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpRequest read = HttpRequest.newBuilder(URI.create(api.url() + CountingDispatcher.PATH)).build();
            HttpResponse<String> answer = http.send(read, HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(200);
            String[] fields = answer.body().trim().split(" ");
            return new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1])};
        }
    }

    @Test
    void waitingForConditionsFailsNamingWhatIsStillPending() {
        List<GenericKubernetesResource> quickstart = SandboxObjects.load(Path.of("../../examples/sandbox/quickstart.yaml"));
        Quickstart.create(api.client(), quickstart, out);
        assertThatThrownBy(() -> Quickstart.awaitReconciled(api.client(), quickstart, Duration.ofSeconds(1), out))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PillarAgent/storage-1 (no conditions yet)")
                .hasMessageContaining("StorageClass/pillar-fast (not generated yet)");
    }

    @Test
    void waitingForConditionsReturnsTheGeneratedClassOnceEveryConditionIsTrue() throws Exception {
        List<GenericKubernetesResource> quickstart = SandboxObjects.load(Path.of("../../examples/sandbox/quickstart.yaml"));
        Quickstart.create(api.client(), quickstart, out);
        for (GenericKubernetesResource object : quickstart) {
            var resources = asController.genericKubernetesResources(object.getApiVersion(), object.getKind());
            GenericKubernetesResource current = resources.withName(object.getMetadata().getName()).get();
            current.setAdditionalProperty("status", Map.of("conditions", List.of(Map.of("type", "Ready", "status", "True",
                    "reason", "Test", "message", "set by the test"))));
            resources.resource(current).updateStatus();
        }
        asController.storage().v1().storageClasses().resource(new StorageClassBuilder().withNewMetadata()
                .withName("pillar-fast").endMetadata().withProvisioner("pillar.csi.io")
                .withParameters(Map.of("pillar.csi.io/store", "fast")).build()).create();
        Map<String, StorageClass> classes = Quickstart.awaitReconciled(api.client(), quickstart, Duration.ofSeconds(30), out);
        assertThat(classes).containsOnlyKeys("pillar-fast");
        assertThat(Quickstart.describe(classes.get("pillar-fast"))).contains("provisioner pillar.csi.io")
                .contains("{pillar.csi.io/store=fast}");
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Ready=True  Test: set by the test");
    }
}
