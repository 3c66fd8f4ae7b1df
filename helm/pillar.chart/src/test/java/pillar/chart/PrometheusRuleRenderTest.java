package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import org.junit.jupiter.api.Test;

/**
 * The alerts' PrometheusRule: only when asked for, refused without the Prometheus Operator's CRDs unless
 * forced, and every alert has a severity, a summary and a runbook that docs/troubleshooting.md has.
 */
class PrometheusRuleRenderTest {
    private static final List<String> EXPECTED = List.of("PillarAgentUnreachable", "PillarStoreNearlyFull",
            "PillarThinPoolDataHigh", "PillarThinPoolMetadataHigh", "PillarFencingRefusals", "PillarVolumesMissingOnStorage",
            "PillarExportsMissing", "PillarVolumesAbnormal", "PillarCorruptedMounts", "PillarOrphanVolumes", "PillarVolumesStuck", "PillarControllerNoLeader");

    @Test
    void offByDefaultAndRefusedWithoutTheOperatorsCrdsUnlessForced() {
        assertThat(HelmChart.render(Map.of()).all(GenericKubernetesResource.class))
                .noneMatch(o -> o.getKind().equals("PrometheusRule"));
        assertThatThrownBy(() -> HelmChart.template(Map.of("metrics", Map.of("prometheusRule", Map.of("enabled", true))), "1.25.0"))
                .hasMessageContaining("metrics.prometheusRule.enabled=true but the cluster serves no monitoring.coreos.com/v1"
                        + " PrometheusRule");
        assertThatThrownBy(() -> HelmChart.template(Map.of("metrics", Map.of("enabled", false,
                "prometheusRule", Map.of("enabled", true, "force", true))), "1.25.0"))
                .hasMessageContaining("metrics.prometheusRule.enabled=true but metrics.enabled=false");
    }

    @Test
    void everyAlertTheIssueAsksForHasASeveritySummaryAndARunbookInTheTroubleshootingPage() throws IOException {
        Map<String, Map<String, Object>> alerts = AlertRules.alerts(AlertRules.spec());
        assertThat(alerts.keySet()).containsExactlyElementsOf(EXPECTED);
        String runbooks = Files.readString(Path.of("../../docs/troubleshooting.md"));
        String section = runbooks.substring(runbooks.indexOf("\n## Alerts\n"));
        alerts.forEach((name, rule) -> {
            @SuppressWarnings("unchecked")
            Map<String, String> annotations = (Map<String, String>) rule.get("annotations");
            @SuppressWarnings("unchecked")
            Map<String, String> labels = (Map<String, String>) rule.get("labels");
            assertThat(labels.get("severity")).as(name).isIn("critical", "warning", "info");
            assertThat(annotations.get("summary")).as(name).isNotBlank();
            assertThat(annotations.get("runbook")).as(name)
                    .isEqualTo("docs/troubleshooting.md#" + name.toLowerCase(java.util.Locale.ROOT));
            assertThat(section).as("the runbook of " + name).contains("\n### " + name + "\n");
        });
    }
}
