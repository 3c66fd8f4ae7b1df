package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.WorkloadConfig;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Prometheus metrics in the chart: each workload's health port is its container port
 * {@code metrics}, behind a headless Service of the same port name, and its configuration file
 * says {@code metrics.enabled} as its own reader reads it; ServiceMonitors only when asked for and
 * (unless forced) only where the cluster serves them; the Grafana dashboard's ConfigMap only when
 * asked for, with the sidecar's label.
 */
class MetricsRenderTest {
    private static final String PREFIX = "pillar-pillar-csi-";
    /** Each workload: its container, its config file (ConfigMap and key) and its health port by default. */
    private static final List<Workload> WORKLOADS = List.of(new Workload("controller", "pillar-controller", "controller.yaml", 9808),
            new Workload("node", "pillar-node", "node.yaml", 9809), new Workload("agent", "pillar-agent", "storage-1.yaml", 9810));

    @TempDir
    Path dir;

    private record Workload(String component, String container, String configKey, int port) {
    }

    @AfterEach
    void clusterWithoutTheApi() {
        FakeKubeApi.instance().clear();
    }

    @Test
    void everyWorkloadServesMetricsOnItsHealthPortBehindAHeadlessService() throws IOException {
        Rendered rendered = HelmChart.render(AgentRenderTest.TWO_NODES);
        for (Workload workload : WORKLOADS) {
            PodTemplateSpec pod = template(rendered, workload);
            Container container = Rendered.container(pod.getSpec(), workload.container());
            assertThat(container.getPorts()).filteredOn(p -> p.getName().equals("metrics")).singleElement()
                    .extracting(ContainerPort::getContainerPort).isEqualTo(workload.port())
                    .isEqualTo(container.getReadinessProbe().getHttpGet().getPort().getIntVal());
            Service service = rendered.get(Service.class, PREFIX + workload.component() + "-metrics");
            assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
            assertThat(pod.getMetadata().getLabels()).containsAllEntriesOf(service.getSpec().getSelector());
            assertThat(service.getSpec().getPorts()).singleElement().satisfies(port -> {
                assertThat(port.getName()).isEqualTo("metrics");
                assertThat(port.getPort()).isEqualTo(workload.port());
                assertThat(port.getTargetPort().getStrVal()).isEqualTo("metrics");
            });
            assertThat(metricsEnabled(rendered, workload)).as(workload.component()).isTrue();
        }
        // the agent's Service selects every storage node's agent pods, and no other workload's
        Map<String, String> agentSelector = rendered.get(Service.class, PREFIX + "agent-metrics").getSpec().getSelector();
        assertThat(rendered.agents()).hasSize(2).allSatisfy(agent ->
                assertThat(agent.getSpec().getTemplate().getMetadata().getLabels()).containsAllEntriesOf(agentSelector));
        assertThat(List.of(template(rendered, WORKLOADS.get(0)), template(rendered, WORKLOADS.get(1))))
                .noneSatisfy(pod -> assertThat(pod.getMetadata().getLabels()).containsAllEntriesOf(agentSelector));
        assertThat(HelmChart.render(Map.of()).find(Service.class, PREFIX + "agent-metrics")).as("no agent, no Service").isEmpty();
        assertThat(HelmChart.render(Map.of("node", Map.of("healthPort", 9900))).get(Service.class, PREFIX + "node-metrics")
                .getSpec().getPorts()).extracting(ServicePort::getPort).containsExactly(9900);
    }

    @Test
    void metricsOffTellsEveryWorkloadAndRendersNoService() throws IOException {
        Rendered rendered = HelmChart.render(with(Map.of("enabled", false)));
        for (Workload workload : WORKLOADS) {
            assertThat(metricsEnabled(rendered, workload)).as(workload.component()).isFalse();
        }
        assertThat(rendered.all(Service.class)).isEmpty();
        assertThatThrownBy(() -> HelmChart.render(with(Map.of("enabled", false, "serviceMonitor", Map.of("enabled", true)))))
                .hasMessageContaining("metrics.serviceMonitor.enabled=true but metrics.enabled=false");
    }

    @Test
    void serviceMonitorsOnlyWhenAskedAndWhereTheClusterServesThem() {
        assertThat(serviceMonitors(HelmChart.install(AgentRenderTest.TWO_NODES).rendered())).as("off by default").isEmpty();
        FakeKubeApi.instance().monitoringApi(true);
        assertThat(serviceMonitors(HelmChart.install(AgentRenderTest.TWO_NODES).rendered())).as("still off").isEmpty();

        Map<String, Object> values = with(Map.of("serviceMonitor", Map.of("enabled", true, "interval", "15s",
                "labels", Map.of("release", "kube-prometheus-stack"))));
        Rendered rendered = HelmChart.install(values).rendered();
        List<GenericKubernetesResource> monitors = serviceMonitors(rendered);
        assertThat(monitors).extracting(m -> m.getMetadata().getName())
                .containsExactlyInAnyOrder(PREFIX + "controller", PREFIX + "node", PREFIX + "agent");
        for (GenericKubernetesResource monitor : monitors) {
            String component = monitor.getMetadata().getName().substring(PREFIX.length());
            Service service = rendered.get(Service.class, PREFIX + component + "-metrics");
            assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
            assertThat(service.getMetadata().getLabels()).containsAllEntriesOf(
                    monitor.<Map<String, String>>get("spec", "selector", "matchLabels"));
            assertThat(monitor.<List<String>>get("spec", "namespaceSelector", "matchNames")).containsExactly(HelmChart.NAMESPACE);
            assertThat(monitor.<List<Map<String, Object>>>get("spec", "endpoints")).singleElement().satisfies(endpoint -> {
                assertThat(endpoint).containsEntry("port", service.getSpec().getPorts().getFirst().getName())
                        .containsEntry("path", WorkloadMetrics.PATH).containsEntry("interval", "15s")
                        .containsEntry("scrapeTimeout", "10s");
                assertThat(endpoint.get("relabelings")).isEqualTo(List.of(
                        Map.of("sourceLabels", List.of("__meta_kubernetes_pod_node_name"), "targetLabel", "node")));
            });
        }

        FakeKubeApi.instance().monitoringApi(false);
        assertThatThrownBy(() -> HelmChart.install(values))
                .hasMessageContaining("metrics.serviceMonitor.enabled=true but the cluster serves no monitoring.coreos.com/v1 ServiceMonitor")
                .hasMessageContaining("metrics.serviceMonitor.force=true");
        assertThat(serviceMonitors(HelmChart.render(with(Map.of("serviceMonitor", Map.of("enabled", true, "force", true))))))
                .as("forced, helm template").hasSize(3);
    }

    @Test
    void theDashboardIsTheChartsFileInAConfigMapForGrafanasSidecar() throws IOException {
        assertThat(HelmChart.render(Map.of()).find(ConfigMap.class, PREFIX + "dashboard")).as("off by default").isEmpty();
        ConfigMap dashboard = HelmChart.render(with(Map.of("dashboard", Map.of("enabled", true))))
                .get(ConfigMap.class, PREFIX + "dashboard");
        assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1")
                .containsEntry("app.kubernetes.io/instance", HelmChart.RELEASE);
        String file = Files.readString(HelmChart.dir().resolve("dashboards/pillar-csi.json"));
        assertThat(dashboard.getData()).containsOnlyKeys("pillar-csi.json");
        assertThat(dashboard.getData().get("pillar-csi.json").strip()).isEqualTo(file.strip());

        JsonNode json = new ObjectMapper().readTree(file);
        assertThat(json.path("uid").asText()).isEqualTo("pillar-csi");
        assertThat(json.path("templating").path("list")).anySatisfy(variable -> {
            assertThat(variable.path("name").asText()).isEqualTo("datasource");
            assertThat(variable.path("type").asText()).isEqualTo("datasource");
            assertThat(variable.path("query").asText()).isEqualTo("prometheus");
        });
        assertThat(json.path("panels")).isNotEmpty().allSatisfy(panel -> {
            assertThat(panel.path("datasource").path("uid").asText()).as(panel.path("title").asText()).isEqualTo("${datasource}");
            assertThat(panel.path("targets")).isNotEmpty()
                    .allSatisfy(target -> assertThat(target.path("expr").asText()).isNotBlank());
        });

        ConfigMap relabelled = HelmChart.render(with(Map.of("dashboard", Map.of("enabled", true,
                "label", "dashboards", "labelValue", "storage", "annotations", Map.of("grafana_folder", "Storage")))))
                .get(ConfigMap.class, PREFIX + "dashboard");
        assertThat(relabelled.getMetadata().getLabels()).containsEntry("dashboards", "storage").doesNotContainKey("grafana_dashboard");
        assertThat(relabelled.getMetadata().getAnnotations()).containsExactlyEntriesOf(Map.of("grafana_folder", "Storage"));
    }

    /** The values {@link AgentRenderTest#TWO_NODES} with {@code metrics} set so. */
    private static Map<String, Object> with(Map<String, Object> metrics) {
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        values.put("metrics", metrics);
        return values;
    }

    private static List<GenericKubernetesResource> serviceMonitors(Rendered rendered) {
        return rendered.all(GenericKubernetesResource.class).stream().filter(o -> o.getKind().equals("ServiceMonitor")).toList();
    }

    private static PodTemplateSpec template(Rendered rendered, Workload workload) {
        return switch (workload.component()) {
            case "controller" -> rendered.controller().getSpec().getTemplate();
            case "node" -> rendered.nodePlugin().getSpec().getTemplate();
            default -> rendered.agent().getSpec().getTemplate();
        };
    }

    /** Whether the workload's rendered configuration file turns its metrics on, read as the workload reads it. */
    private boolean metricsEnabled(Rendered rendered, Workload workload) throws IOException {
        Path file = Files.writeString(dir.resolve(workload.component() + ".yaml"),
                rendered.get(ConfigMap.class, PREFIX + workload.component()).getData().get(workload.configKey()));
        return WorkloadMetrics.from(WorkloadConfig.load("--config", file.toString()), workload.component()).enabled();
    }
}
