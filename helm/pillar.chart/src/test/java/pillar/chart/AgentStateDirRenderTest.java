package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static pillar.chart.ControllerRenderTest.mount;
import static pillar.chart.ControllerRenderTest.mounts;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.PodSpec;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Each release's agents keep their state in a directory of their own, so that two releases on one
 * storage node never share one; the directory every release shared before is named so that an agent
 * moves its own state from there, and both are in one mount, so that the move is a rename.
 */
class AgentStateDirRenderTest {
    private static final Object NODES = ((Map<?, ?>) AgentRenderTest.TWO_NODES.get("agent")).get("nodes");

    /** The agent's config for storage-1 of a release. */
    private static Map<String, Object> agentConfig(Rendered rendered) {
        ConfigMap configMap = rendered.all(ConfigMap.class).stream()
                .filter(c -> c.getMetadata().getName().endsWith("-agent")).findFirst().orElseThrow();
        Map<String, Object> file = new Yaml().load(configMap.getData().get("storage-1.yaml"));
        @SuppressWarnings("unchecked")
        Map<String, Object> agent = (Map<String, Object>) file.get("agent");
        return agent;
    }

    private static PodSpec agentPod(Rendered rendered) {
        return rendered.agents().getFirst().getSpec().getTemplate().getSpec();
    }

    private static Map<String, Object> withAgent(Map<String, Object> agent) {
        Map<String, Object> values = new java.util.HashMap<>(agent);
        values.put("nodes", NODES);
        return Map.of("agent", values);
    }

    @Test
    void twoReleasesOnOneStorageNodeGetStateDirectoriesOfTheirOwn() {
        Map<String, Object> first = agentConfig(HelmChart.render(AgentRenderTest.TWO_NODES, "pillar", "storage-system"));
        Map<String, Object> second = agentConfig(HelmChart.render(AgentRenderTest.TWO_NODES, "pillar-b", "storage-system"));
        Map<String, Object> elsewhere = agentConfig(HelmChart.render(AgentRenderTest.TWO_NODES, "pillar", "storage-b"));
        assertThat(first.get("state-dir")).isEqualTo("/var/lib/pillar-csi/storage-system.pillar/agent");
        assertThat(second.get("state-dir")).isEqualTo("/var/lib/pillar-csi/storage-system.pillar-b/agent");
        assertThat(elsewhere.get("state-dir")).isEqualTo("/var/lib/pillar-csi/storage-b.pillar/agent");
        // each names the directory all shared before, which its agent moves from only when it is its own
        for (Map<String, Object> config : List.of(first, second, elsewhere)) {
            assertThat(config.get("legacy-state-dir")).isEqualTo("/var/lib/pillar-csi/agent");
        }
    }

    @Test
    void theDaemonSetMountsTheParentOfTheStateAndTheLegacyDirectoriesWhole() {
        PodSpec pod = agentPod(HelmChart.render(AgentRenderTest.TWO_NODES));
        assertThat(mounts(Rendered.container(pod, "pillar-agent"))).contains(mount("state", "/var/lib/pillar-csi", null))
                .noneMatch(m -> m.getName().equals("state-dir"));
        assertThat(NodeRenderTest.hostPaths(pod)).contains("state=/var/lib/pillar-csi:DirectoryOrCreate")
                .noneMatch(p -> p.startsWith("state-dir="));
    }

    @Test
    void agentStateDirOverridesItAndOneOutsideTheRootIsMountedOnItsOwn() {
        Map<String, Object> inside = agentConfig(HelmChart.render(withAgent(Map.of("stateDir", "/var/lib/pillar-csi/prod/agent"))));
        assertThat(inside.get("state-dir")).isEqualTo("/var/lib/pillar-csi/prod/agent");
        assertThat(inside.get("legacy-state-dir")).isEqualTo("/var/lib/pillar-csi/agent");

        Rendered outside = HelmChart.render(withAgent(Map.of("stateDir", "/srv/pillar/agent")));
        assertThat(agentConfig(outside).get("state-dir")).isEqualTo("/srv/pillar/agent");
        PodSpec pod = agentPod(outside);
        assertThat(mounts(Rendered.container(pod, "pillar-agent"))).contains(mount("state", "/var/lib/pillar-csi", null),
                mount("state-dir", "/srv/pillar/agent", null));
        assertThat(NodeRenderTest.hostPaths(pod)).contains("state=/var/lib/pillar-csi:DirectoryOrCreate",
                "state-dir=/srv/pillar/agent:DirectoryOrCreate");

        // keeping the old shared place: nothing to move from
        Map<String, Object> kept = agentConfig(HelmChart.render(withAgent(Map.of("stateDir", "/var/lib/pillar-csi/agent"))));
        assertThat(kept.get("state-dir")).isEqualTo("/var/lib/pillar-csi/agent");
        assertThat(kept).doesNotContainKey("legacy-state-dir");
    }

    @Test
    void aStateDirThatIsNotAbsoluteAndCleanOrOverlapsAnotherIsRefused() {
        for (String bad : List.of("var/lib/pillar-csi/x", "/var/lib/pillar-csi/x/../agent", "/var/lib/pillar-csi/x/",
                "/var//lib/x", "/")) {
            assertThatThrownBy(() -> HelmChart.template(withAgent(Map.of("stateDir", bad)), "1.25.0")).as(bad)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("stateDir");
        }
        assertThatThrownBy(() -> HelmChart.template(withAgent(Map.of("stateDir", "/var/lib/pillar-csi/agent/mine")), "1.25.0"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("inside /var/lib/pillar-csi/agent");
        assertThatThrownBy(() -> HelmChart.template(withAgent(Map.of("stateDir", "/var/lib/pillar-csi")), "1.25.0"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("other releases' state directories");
        assertThatThrownBy(() -> HelmChart.template(withAgent(Map.of("stateDir", "/var/lib/pillar-csi/node")), "1.25.0"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("node plugin's");
        // refused even without storage nodes (the value is checked with the others)
        assertThatThrownBy(() -> HelmChart.template(Map.of("agent", Map.of("stateDir", "/var/lib/pillar-csi/x/../y")), "1.25.0"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("stateDir");
    }
}
