package pillar.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import pillar.controller.reconcile.MockApi;

/**
 * The README's CRD upgrade step, {@code kubectl apply --server-side --force-conflicts -f
 * helm/pillar-csi/crds/}, on the emulated API server: it is made as kubectl makes it (one forced
 * apply patch per document) over the CRDs of a previous release that Helm created, with the
 * sandbox's Pillar objects stored. Afterwards every CRD of the chart is served exactly as the chart
 * says, a CRD the previous release lacked is created, the stored objects are the same objects with
 * no field the new schema would prune, and a field only the new schema has is kept. The previous
 * release is the chart's CRDs without PillarSnapshotState and without PillarAgent's
 * {@code spec.tls.serverName} (both added since the first CRDs).
 */
class CrdUpgradeIT {
    private static final Path CHART = Path.of(System.getProperty("pillar.crds.chart", "../../helm/pillar-csi/crds"));
    private static final Path OBJECTS = Path.of("../../examples/sandbox/quickstart.yaml");
    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    private MockApi api;
    private KubernetesClient client;

    @BeforeEach
    void installThePreviousRelease() throws IOException {
        api = MockApi.bare();
        client = api.client;
        for (CustomResourceDefinition crd : previousRelease()) {
            client.apiextensions().v1().customResourceDefinitions().resource(crd).create(); // as helm install creates crds/
        }
    }

    @AfterEach
    void stop() {
        api.close();
    }

    @Test
    void theDocumentedStepServesTheNewSchemaAndKeepsTheStoredObjects() throws IOException {
        List<GenericKubernetesResource> stored = new ArrayList<>();
        for (GenericKubernetesResource object : ExamplesTest.load(OBJECTS)) {
            stored.add(client.resource(withoutServerName(object)).create());
        }
        GenericKubernetesResource agentWithServerName = agent(stored).orElseThrow();
        agentWithServerName.setAdditionalProperty("spec", withServerName(agentWithServerName));
        assertThat(ServedSchema.undeclared(agentWithServerName, served("pillaragents.pillar.csi.io")))
                .as("the previous release would prune the new field").containsExactly("spec.tls.serverName");

        applyTheChartsCrds();

        for (CustomResourceDefinition crd : chart()) {
            assertThat(served(crd.getMetadata().getName()).getSpec()).as(crd.getMetadata().getName() + " as the chart says")
                    .isEqualTo(crd.getSpec());
        }
        for (GenericKubernetesResource before : stored) {
            GenericKubernetesResource after = client.resource(before).get();
            assertThat(after).as(before.getKind() + "/" + before.getMetadata().getName() + " survives").isNotNull();
            assertThat(after.getMetadata().getUid()).isEqualTo(before.getMetadata().getUid());
            assertThat(after.getAdditionalProperties()).isEqualTo(before.getAdditionalProperties());
            assertThat(ServedSchema.undeclared(after, served(crdName(after)))).as("fields the new schema would prune").isEmpty();
        }
        assertThat(ServedSchema.undeclared(agentWithServerName, served("pillaragents.pillar.csi.io"))).isEmpty();
        GenericKubernetesResource updated = client.resource(agentWithServerName).update();
        assertThat(spec(updated).get("tls")).asString().contains("serverName=storage-1.pillar-agent");
    }

    @Test
    void theStepCanBeRunAgainAndCreateIsNoUpgrade() throws IOException {
        GenericKubernetesResource store = client.resource(ExamplesTest.load(OBJECTS).stream()
                .filter(o -> o.getKind().equals("PillarStore")).findFirst().orElseThrow()).create();
        applyTheChartsCrds();
        applyTheChartsCrds();

        for (CustomResourceDefinition crd : chart()) {
            assertThat(served(crd.getMetadata().getName()).getSpec()).isEqualTo(crd.getSpec());
            assertThatThrownBy(() -> client.apiextensions().v1().customResourceDefinitions().resource(crd).create())
                    .as("kubectl create -f refuses CRDs that exist").isInstanceOf(KubernetesClientException.class)
                    .extracting(e -> ((KubernetesClientException) e).getCode()).isEqualTo(409);
        }
        assertThat(client.resource(store).get().getMetadata().getUid()).isEqualTo(store.getMetadata().getUid());
    }

    /** What {@code kubectl apply --server-side --force-conflicts -f helm/pillar-csi/crds/} sends: a forced apply patch per document. */
    private void applyTheChartsCrds() throws IOException {
        for (CustomResourceDefinition crd : chart()) {
            client.apiextensions().v1().customResourceDefinitions().resource(crd).fieldManager("kubectl").forceConflicts()
                    .serverSideApply();
        }
    }

    private CustomResourceDefinition served(String name) {
        return client.apiextensions().v1().customResourceDefinitions().withName(name).get();
    }

    private static List<CustomResourceDefinition> chart() throws IOException {
        List<CustomResourceDefinition> crds = new ArrayList<>();
        try (Stream<Path> files = Files.list(CHART)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yml")).sorted().toList()) {
                try (InputStream in = Files.newInputStream(file)) {
                    crds.add(JSON.unmarshal(in, CustomResourceDefinition.class));
                }
            }
        }
        return crds;
    }

    /** The chart's CRDs without PillarSnapshotState and without PillarAgent's spec.tls.serverName (and its rules). */
    private static List<CustomResourceDefinition> previousRelease() throws IOException {
        List<CustomResourceDefinition> crds = new ArrayList<>(chart());
        crds.removeIf(crd -> crd.getMetadata().getName().equals("pillarsnapshotstates.pillar.csi.io"));
        for (CustomResourceDefinition crd : crds) {
            if (crd.getMetadata().getName().equals("pillaragents.pillar.csi.io")) {
                JSONSchemaProps tls = crd.getSpec().getVersions().getFirst().getSchema().getOpenAPIV3Schema().getProperties()
                        .get("spec").getProperties().get("tls");
                assertThat(tls.getProperties().remove("serverName")).as("the field the test removes").isNotNull();
                if (tls.getXKubernetesValidations() != null) {
                    tls.getXKubernetesValidations().removeIf(rule -> rule.getRule().contains("serverName"));
                }
            }
        }
        assertThat(crds).hasSize(5);
        return crds;
    }

    private static String crdName(GenericKubernetesResource object) {
        String kind = object.getKind().toLowerCase();
        return kind + (kind.endsWith("s") ? "es" : "s") + ".pillar.csi.io";
    }

    private static java.util.Optional<GenericKubernetesResource> agent(List<GenericKubernetesResource> objects) {
        return objects.stream().filter(o -> o.getKind().equals("PillarAgent")).findFirst()
                .map(o -> JSON.clone(o));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource object) {
        return (Map<String, Object>) object.getAdditionalProperties().get("spec");
    }

    /** The object as the previous release could store it: no spec.tls.serverName. */
    @SuppressWarnings("unchecked")
    private static GenericKubernetesResource withoutServerName(GenericKubernetesResource object) {
        GenericKubernetesResource copy = JSON.clone(object);
        if (spec(copy).get("tls") instanceof Map<?, ?> tls) {
            Map<String, Object> changed = new HashMap<>((Map<String, Object>) tls);
            changed.remove("serverName");
            spec(copy).put("tls", changed);
        }
        return copy;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> withServerName(GenericKubernetesResource agent) {
        Map<String, Object> spec = new HashMap<>(spec(agent));
        Map<String, Object> tls = new HashMap<>((Map<String, Object>) spec.get("tls"));
        tls.put("serverName", "storage-1.pillar-agent");
        spec.put("tls", tls);
        return spec;
    }
}
