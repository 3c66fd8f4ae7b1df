package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import org.junit.jupiter.api.Test;

/**
 * What an operator sets per workload: the log level (the workload's log.level), more flags and more
 * environment variables; the init containers' resources; the agent's tolerations of storage nodes' taints.
 */
class WorkloadOptionsRenderTest {
    @Test
    void logLevelExtraArgsAndEnvReachEachWorkload() {
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        Map<String, Object> agent = new HashMap<>(map(values.get("agent")));
        agent.putAll(Map.of("logLevel", "debug", "extraArgs", List.of("--agent.call-deadline=60s"),
                "extraEnv", List.of(Map.of("name", "TZ", "value", "UTC"))));
        values.put("agent", agent);
        values.put("controller", Map.of("logLevel", "warning", "extraArgs", List.of("--controller.resync=5m"),
                "extraEnv", List.of(Map.of("name", "TZ", "value", "UTC"))));
        values.put("node", Map.of("logLevel", "trace", "extraArgs", List.of("--node.attach-timeout=90s"),
                "extraEnv", List.of(Map.of("name", "TZ", "value", "UTC"))));
        Rendered rendered = HelmChart.render(values);

        assertThat(rendered.configFile("pillar-pillar-csi-agent", "storage-1.yaml")).containsEntry("log",
                Map.of("format", "text", "level", "debug"));
        assertThat(rendered.configFile("pillar-pillar-csi-controller", "controller.yaml")).containsEntry("log",
                Map.of("format", "text", "level", "warning"));
        assertThat(rendered.configFile("pillar-pillar-csi-node", "node.yaml")).containsEntry("log",
                Map.of("format", "text", "level", "trace"));

        Container controller = Rendered.container(rendered.controller().getSpec().getTemplate().getSpec(), "pillar-controller");
        assertThat(controller.getArgs()).containsExactly("--config", "/etc/pillar-csi/config/controller.yaml", "--controller.resync=5m");
        assertThat(controller.getEnv()).extracting(EnvVar::getName).containsExactly("TZ");
        Container agentContainer = Rendered.container(rendered.agent().getSpec().getTemplate().getSpec(), "pillar-agent");
        assertThat(agentContainer.getArgs()).endsWith("--agent.call-deadline=60s");
        assertThat(agentContainer.getEnv()).extracting(EnvVar::getName).containsExactly("NODE_NAME", "PILLAR_NODE_IP", "TZ");
        Container node = Rendered.container(rendered.nodePlugin().getSpec().getTemplate().getSpec(), "pillar-node");
        assertThat(node.getArgs()).containsExactly("--config", "/etc/pillar-csi/config/node.yaml", "--node.id=$(NODE_NAME)",
                "--node.attach-timeout=90s");
        assertThat(node.getEnv()).extracting(EnvVar::getName).containsExactly("NODE_NAME", "PILLAR_NODE_IP", "TZ");
    }

    @Test
    void theDefaultsAreInfoNoFlagsAndNoEnvAndABadLevelIsRefused() {
        Rendered rendered = HelmChart.render(AgentRenderTest.TWO_NODES);
        assertThat(rendered.configFile("pillar-pillar-csi-controller", "controller.yaml")).containsEntry("log",
                Map.of("format", "text", "level", "info"));
        assertThat(Rendered.container(rendered.controller().getSpec().getTemplate().getSpec(), "pillar-controller").getEnv())
                .isNullOrEmpty();
        assertThatThrownBy(() -> HelmChart.template(Map.of("node", Map.of("logLevel", "verbose")), "1.25.0"))
                .hasMessageContaining("logLevel");
    }

    @Test
    void initContainersHaveResourcesAndTheAgentToleratesEveryTaint() {
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        Map<String, Object> agent = new HashMap<>(map(values.get("agent")));
        agent.put("nfs", Map.of("enabled", true, "exportRoots", List.of("/tank")));
        values.put("agent", agent);
        Rendered rendered = HelmChart.render(values);
        PodSpec agentPod = rendered.agent().getSpec().getTemplate().getSpec();
        PodSpec nodePod = rendered.nodePlugin().getSpec().getTemplate().getSpec();
        for (Container init : List.of(Rendered.container(agentPod, "modprobe"), Rendered.container(agentPod, "nfsd"),
                Rendered.container(nodePod, "modprobe"))) {
            assertThat(init.getResources().getRequests()).as(init.getName()).containsEntry("memory", new Quantity("16Mi"));
            assertThat(init.getResources().getLimits()).as(init.getName()).containsEntry("memory", new Quantity("64Mi"));
        }
        assertThat(agentPod.getTolerations()).extracting(Toleration::getOperator).containsExactly("Exists");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }
}
