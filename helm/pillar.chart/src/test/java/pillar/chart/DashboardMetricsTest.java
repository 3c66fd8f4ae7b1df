package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Every series the Grafana dashboard and the alerts query is one the workloads really serve: the
 * names in each panel's and each alert's {@code expr} ({@link PromQlNames}) against the sample names of the three workloads'
 * {@code /metrics}, scraped after they have served one volume's life in this JVM
 * ({@link InProcessWorkloads}). No list of names is kept here: a meter renamed in a workload, or a
 * panel that reads a histogram without its {@code _bucket}, fails this test.
 */
class DashboardMetricsTest {
    @TempDir
    Path dir;

    @Test
    void everySeriesTheDashboardAndTheAlertsQueryIsServedByAWorkload() throws Exception {
        Map<String, Set<String>> queried = queriedNames();
        assertThat(queried).as("the dashboard queries something").isNotEmpty();
        Map<String, Set<String>> alerted = alertNames();
        assertThat(alerted).as("the alerts query something").isNotEmpty();
        alerted.forEach((name, alerts) -> queried.computeIfAbsent(name, n -> new TreeSet<>()).addAll(alerts));
        Map<String, InProcessWorkloads.Scrape> scrapes;
        try (InProcessWorkloads workloads = new InProcessWorkloads(dir)) {
            workloads.lifecycle();
            scrapes = workloads.scrapes();
        }
        Set<String> served = new TreeSet<>();
        scrapes.values().forEach(scrape -> served.addAll(scrape.sampleNames()));

        List<String> missing = new ArrayList<>();
        queried.forEach((name, panels) -> {
            if (!served.contains(name)) {
                missing.add(name + " (read by " + panels + ")");
            }
        });
        List<String> answers = scrapes.entrySet().stream().map(e -> e.getKey() + ": HTTP " + e.getValue().status() + ", "
                + e.getValue().sampleNames().size() + " series").toList();
        assertThat(missing).as("series the dashboard queries that no workload served after a lifecycle (%s); served: %s",
                answers, served).isEmpty();
    }

    @Test
    void namesAreTheSeriesAnExpressionReads() {
        assertThat(PromQlNames.of("histogram_quantile(0.99, sum by (le, method) (rate(pillar_x_seconds_bucket{code!=\"OK\"}[5m])))"))
                .containsExactly("pillar_x_seconds_bucket");
        assertThat(PromQlNames.of("sum without (instance) (pillar_a_total offset 1h) / on (backend) group_left (pool) pillar_b"
                + " > bool 0.9 and pillar_c{label=~\"x|y\"}"))
                .containsExactly("pillar_a_total", "pillar_b", "pillar_c");
        assertThat(PromQlNames.of("max by (pod) (pillar_controller_leader) or vector(0)")).containsExactly("pillar_controller_leader");
    }

    /** Each series name the alerts' expressions read, with "alert " and the names of the alerts that read it. */
    static Map<String, Set<String>> alertNames() {
        Map<String, Set<String>> names = new TreeMap<>();
        AlertRules.alerts(AlertRules.spec()).forEach((alert, rule) -> {
            for (String name : PromQlNames.of(String.valueOf(rule.get("expr")))) {
                names.computeIfAbsent(name, n -> new TreeSet<>()).add("alert " + alert);
            }
        });
        return names;
    }

    /** Each series name the dashboard's queries read, with the titles of the panels that read it. */
    static Map<String, Set<String>> queriedNames() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(HelmChart.dir().resolve("dashboards/pillar-csi.json").toFile());
        Map<String, Set<String>> names = new TreeMap<>();
        for (JsonNode panel : dashboard.path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                for (String name : PromQlNames.of(target.path("expr").asText())) {
                    names.computeIfAbsent(name, n -> new TreeSet<>()).add(panel.path("title").asText());
                }
            }
        }
        return names;
    }
}
