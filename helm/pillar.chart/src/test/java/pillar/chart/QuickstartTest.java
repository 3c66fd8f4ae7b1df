package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarProtocol;
import pillar.controller.crd.PillarStorageClass;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.ProtocolFit;
import pillar.controller.crd.SpecValidator;

/**
 * The README's cluster quickstart as written: each values file of {@code examples/quickstart/} is
 * installed by real Helm, the Pillar objects its notes end with are cut out exactly as the README's
 * {@code sed} does and applied, with the example's claim and pods, to the emulated Kubernetes API
 * (fabric8's mock server in CRUD mode serving the chart's CRDs). Each object passes the controller's
 * own checks, and every name one object gives another resolves: the agent's node, port and TLS
 * Secret are the chart's, each store names a backend of that node's agent configuration, each class
 * a store and a protocol that fit, the claim a class, the pod the claim.
 */
class QuickstartTest {
    private static final Path EXAMPLES = Path.of("../../examples/quickstart");
    private static final String MARK = "# pillar-csi objects";

    @ParameterizedTest
    @CsvSource({"values.yaml, pvc-pod.yaml, storage-1-thin", "values-zfs.yaml, , storage-1-zvols",
            "values-nfs.yaml, pvc-rwx.yaml, storage-1-shared"})
    void theNotesObjectsAndTheClaimApplyAndReferToEachOther(String values, String claims, String storageClass) throws IOException {
        HelmChart.Installed installed = HelmChart.install(Optional.of(EXAMPLES.resolve(values)));
        String notes = installed.notes();
        assertThat(notes).as("the notes say how to apply what they end with")
                .contains("sed -n '/^" + MARK + "/,$p' | kubectl apply -f -").contains(MARK);
        List<HasMetadata> objects = HelmChart.parse(notes.substring(notes.lastIndexOf("\n" + MARK) + 1));
        if (claims != null) {
            objects.addAll(HelmChart.parse(Files.readString(EXAMPLES.resolve(claims))));
        }

        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init();
        try (KubernetesClient api = server.createClient(new JdkHttpClientFactory())) {
            installCrds(api);
            for (HasMetadata object : objects) {
                api.resource(object).create();
            }
            check(api, installed.rendered(), storageClass, claims != null);
        } finally {
            server.destroy();
        }
    }

    private static void check(KubernetesClient api, Rendered chart, String storageClass, boolean claimed) {
        List<PillarAgent> agents = api.resources(PillarAgent.class).list().getItems();
        List<PillarStore> stores = api.resources(PillarStore.class).list().getItems();
        List<PillarProtocol> protocols = api.resources(PillarProtocol.class).list().getItems();
        List<PillarStorageClass> classes = api.resources(PillarStorageClass.class).list().getItems();
        assertThat(agents).extracting(a -> a.getMetadata().getName()).containsExactly("storage-1");
        assertThat(stores).hasSize(1);
        assertThat(protocols).hasSize(1);
        assertThat(classes).extracting(c -> c.getMetadata().getName()).containsExactly(storageClass);

        List<String> secrets = chart.all(Secret.class).stream().map(s -> s.getMetadata().getName()).toList();
        for (PillarAgent agent : agents) {
            assertThat(SpecValidator.problems(agent.getSpec())).isEmpty();
            Map<String, Object> config = chart.configFile("pillar-pillar-csi-agent", agent.getSpec().getNodeName() + ".yaml");
            @SuppressWarnings("unchecked")
            Map<String, Object> listen = (Map<String, Object>) ((Map<String, Object>) config.get("agent")).get("listen");
            assertThat(agent.getSpec().getPort()).as("the port the chart's agent listens on").isEqualTo(listen.get("port"))
                    .isEqualTo(9500);
            assertThat(secrets).as("the agent's TLS Secret is the chart's").contains(agent.getSpec().getTls().getSecretName());
        }
        for (PillarStore store : stores) {
            assertThat(SpecValidator.problems(store.getSpec())).as(store.getMetadata().getName()).isEmpty();
            Map<String, Object> config = chart.configFile("pillar-pillar-csi-agent", store.getSpec().getAgent() + ".yaml");
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> backends = (List<Map<String, Object>>) ((Map<String, Object>) config.get("agent")).get("backends");
            String backend = store.getSpec().getLvm() != null ? store.getSpec().getLvm().getBackend() : store.getSpec().getZfs().getBackend();
            assertThat(backends).as("the store's backend is one its agent is configured with")
                    .anySatisfy(b -> assertThat(b.get("name")).isEqualTo(backend));
        }
        for (PillarProtocol protocol : protocols) {
            assertThat(SpecValidator.problems(protocol.getSpec())).as(protocol.getMetadata().getName()).isEmpty();
        }
        for (PillarStorageClass pillarClass : classes) {
            var spec = pillarClass.getSpec();
            assertThat(SpecValidator.problems(spec)).isEmpty();
            PillarStore store = stores.stream().filter(s -> s.getMetadata().getName().equals(spec.getStore())).findFirst().orElseThrow();
            PillarProtocol protocol = protocols.stream().filter(p -> p.getMetadata().getName().equals(spec.getProtocol()))
                    .findFirst().orElseThrow(() -> new AssertionError("no PillarProtocol " + spec.getProtocol()));
            assertThat(ProtocolFit.mismatch(spec.getStore(), store.getSpec(), spec.getProtocol(), protocol.getSpec())).isEmpty();
        }
        if (claimed) {
            List<PersistentVolumeClaim> claims = api.persistentVolumeClaims().inAnyNamespace().list().getItems();
            assertThat(claims).isNotEmpty().allSatisfy(c -> assertThat(c.getSpec().getStorageClassName()).isEqualTo(storageClass));
            List<Pod> pods = api.pods().inAnyNamespace().list().getItems();
            assertThat(pods).isNotEmpty().allSatisfy(p -> assertThat(p.getSpec().getVolumes())
                    .anySatisfy(v -> assertThat(v.getPersistentVolumeClaim().getClaimName()).isIn(
                            claims.stream().map(c -> c.getMetadata().getName()).toList())));
        }
    }

    private static void installCrds(KubernetesClient api) throws IOException {
        try (Stream<Path> files = Files.list(HelmChart.dir().resolve("crds"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    api.apiextensions().v1().customResourceDefinitions()
                            .resource(api.getKubernetesSerialization().unmarshal(in, CustomResourceDefinition.class)).create();
                }
            }
        }
    }
}
