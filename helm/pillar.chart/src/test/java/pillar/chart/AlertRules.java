package pillar.chart;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/** The alerts of the chart's PrometheusRule, as Helm renders it with metrics.prometheusRule on (forced). */
final class AlertRules {
    private AlertRules() {
    }

    static final Map<String, Object> ENABLED = Map.of("metrics", Map.of("prometheusRule", Map.of("enabled", true, "force", true)));

    /** The rendered PrometheusRule's spec: a Prometheus rules file ({@code groups}). */
    @SuppressWarnings("unchecked")
    static Map<String, Object> spec() {
        List<GenericKubernetesResource> rules = HelmChart.render(ENABLED).all(GenericKubernetesResource.class).stream()
                .filter(o -> o.getKind().equals("PrometheusRule")).toList();
        if (rules.size() != 1) {
            throw new AssertionError("expected one PrometheusRule, rendered " + rules.size());
        }
        return (Map<String, Object>) rules.getFirst().getAdditionalProperties().get("spec");
    }

    /** Each alert (its rule: alert, expr, for, labels, annotations) by name, in order. */
    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Object>> alerts(Map<String, Object> spec) {
        Map<String, Map<String, Object>> alerts = new LinkedHashMap<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) spec.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                alerts.put((String) rule.get("alert"), rule);
            }
        }
        return alerts;
    }

    static List<String> names() {
        return new ArrayList<>(alerts(spec()).keySet());
    }
}
