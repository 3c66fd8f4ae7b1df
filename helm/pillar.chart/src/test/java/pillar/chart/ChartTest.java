package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/** The chart as a whole: Chart.yaml, helm lint --strict, the Kubernetes versions, packaging, the CRDs. */
class ChartTest {
    @Test
    void chartYamlDeclaresApiV2KubernetesOneTwentyFiveAndTheAppVersion() throws IOException {
        Map<String, Object> chart = new Yaml().load(Files.readString(HelmChart.dir().resolve("Chart.yaml")));
        assertThat(chart).containsEntry("apiVersion", "v2")
                .containsEntry("name", "pillar-csi")
                .containsEntry("type", "application")
                .containsEntry("kubeVersion", ">=1.25.0-0")
                .containsEntry("appVersion", "0.1.0");
    }

    /** Helm's lint leaves out what a template's fail says: the defaults, which name no registry, lint clean. */
    @Test
    void lintStrictIsClean() {
        LintResult lint = HelmChart.helm().lint().strict().call();
        assertThat(lint.isFailed()).as("helm lint --strict: %s", lint.getMessages()).isFalse();
        // the one remark Helm makes of every chart without an icon
        assertThat(lint.getMessages()).containsExactly("[INFO] Chart.yaml: icon is recommended");
    }

    @Test
    void withoutARegistryRenderingFailsNamingWhatToSet() {
        assertThatThrownBy(() -> HelmChart.templateAsIs(Map.of(), "1.25.0")).hasMessageMatching(
                "(?s).*no registry for the image pillar-csi/(controller|agent|node): set global.imageRegistry \\(or"
                        + " images.<workload>.registry\\) to the registry you pushed pillar-csi's images to \\(dev/bundle"
                        + " builds them; docs/install.md, \"Install \\(air-gapped\\)\"\\).*");
        assertThat(HelmChart.parse(HelmChart.templateAsIs(Map.of("global", Map.of("imageRegistry", "mirror.lan:5000")), "1.25.0")))
                .isNotEmpty();
    }

    private static Path copyOf(Path copy) throws IOException {
        Path chart = copy.resolve("pillar-csi");
        try (var files = Files.walk(HelmChart.dir())) {
            for (Path file : files.toList()) {
                Files.copy(file, chart.resolve(HelmChart.dir().relativize(file).toString()));
            }
        }
        return chart;
    }

    @Test
    void lintStrictFailsACopyWhoseDefaultsBreakTheSchema(@TempDir Path copy) throws IOException {
        Path chart = copyOf(copy);
        Path values = chart.resolve("values.yaml");
        Files.writeString(values, Files.readString(values).replace("replicas: 1", "replicas: two"));
        LintResult lint = new Helm(chart).lint().strict().call();
        assertThat(lint.isFailed()).isTrue();
        assertThat(lint.getMessages())
                .anySatisfy(m -> assertThat(m).contains("at '/controller/replicas': got string, want integer"));
    }

    @Test
    /** The CRDs' CEL validation rules (x-kubernetes-validations, with oldSelf) are on by default from 1.25. */
    void kubernetesOlderThanOneTwentyFiveIsRefused() {
        assertThatThrownBy(() -> HelmChart.template(Map.of(), "1.24.17"))
                .hasMessageContaining("chart requires kubeVersion: >=1.25.0-0 which is incompatible with Kubernetes v1.24.17");
        assertThat(HelmChart.parse(HelmChart.template(Map.of(), "1.25.0"))).isNotEmpty();
        assertThat(HelmChart.parse(HelmChart.template(Map.of(), "1.34.1"))).isNotEmpty();
    }

    @Test
    void packagedChartRendersTheSameAsTheDirectory(@TempDir Path out) throws IOException {
        Helm packaged = HelmChart.helm().packageIt().withDestination(out).call();
        try (var files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("pillar-csi-0.1.0.tgz");
        }
        // the generated certificates differ each time unless the cluster has them: both renderings reuse one pair
        for (io.fabric8.kubernetes.api.model.Secret secret : HelmChart.render(Map.of()).all(io.fabric8.kubernetes.api.model.Secret.class)) {
            FakeKubeApi.instance().put(secret);
        }
        try {
            String fromPackage = packaged.template().withName(HelmChart.RELEASE).withNamespace(HelmChart.NAMESPACE)
                    .withValuesFile(HelmChart.valuesFile(HelmChart.withTestRegistry(Map.of()))).withKubeVersion("1.25.0").call();
            assertThat(fromPackage).isEqualTo(HelmChart.template(Map.of(), "1.25.0"));
        } finally {
            FakeKubeApi.instance().clear();
        }
    }

    @Test
    void theCrdsShipWithTheChartAndTheControllerMayReadEveryOneAndWriteItsStatus() throws IOException {
        String shown = HelmChart.helm().show().crds().call();
        List<CustomResourceDefinition> crds = new ArrayList<>();
        try (var files = Files.list(HelmChart.dir().resolve("crds"))) {
            for (Path file : files.sorted().toList()) {
                String text = Files.readString(file);
                assertThat(shown).as("helm show crds has %s", file.getFileName()).contains(text.strip());
                crds.add((CustomResourceDefinition) HelmChart.parse(text).getFirst());
            }
        }
        assertThat(crds).extracting(crd -> crd.getSpec().getNames().getPlural())
                .contains("pillaragents", "pillarstores", "pillarprotocols", "pillarstorageclasses");
        List<RbacTest.Rule> rules = RbacTest.controllerRules(HelmChart.render(Map.of()));
        List<String> readable = RbacTest.resourcesWithVerbs(rules, "pillar.csi.io", "get", "list", "watch");
        List<String> statusWritable = RbacTest.resourcesWithVerbs(rules, "pillar.csi.io", "patch");
        for (CustomResourceDefinition crd : crds) {
            assertThat(crd.getSpec().getGroup()).isEqualTo("pillar.csi.io");
            String plural = crd.getSpec().getNames().getPlural();
            assertThat(readable).as("the controller reads %s", plural).contains(plural);
            boolean hasStatus = crd.getSpec().getVersions().stream()
                    .anyMatch(v -> v.getSubresources() != null && v.getSubresources().getStatus() != null);
            if (hasStatus) {
                assertThat(statusWritable).as("the controller writes %s/status", plural).contains(plural + "/status");
            }
        }
    }

    @Test
    void withoutIncludeCrdsTheTemplateHoldsNoCrd() {
        List<HasMetadata> objects = HelmChart.render(Map.of()).objects();
        assertThat(objects).noneMatch(o -> o instanceof CustomResourceDefinition);
    }
}
