package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The generated mode keeps its certificates across {@code helm upgrade}: templates/tls/generated.yaml
 * reads the controller's Secret and each agent's own back with {@code lookup} (answered here by
 * {@link FakeKubeApi}, as a cluster would) and renders complete ones of one CA again byte for byte;
 * without all of them, or with one agent's incomplete (a key gone, a node added), a new CA and every
 * certificate.
 */
class GeneratedTlsReuseTest {
    private static final String CONTROLLER = "pillar-pillar-csi-controller-tls";
    /** Each storage node's Secret of {@link AgentRenderTest#TWO_NODES}. */
    private static final List<String> AGENTS = TlsModesTest.NODES.stream().map(n -> "pillar-pillar-csi-agent-" + n + "-tls").toList();

    @AfterEach
    void emptyCluster() {
        FakeKubeApi.instance().clear();
    }

    @Test
    void everyExistingSecretIsRenderedAgainByteForByte() {
        Rendered install = HelmChart.render(AgentRenderTest.TWO_NODES);
        FakeKubeApi.instance().put(install.get(Secret.class, CONTROLLER));
        AGENTS.forEach(agent -> FakeKubeApi.instance().put(install.get(Secret.class, agent)));

        Rendered upgrade = HelmChart.render(AgentRenderTest.TWO_NODES);
        for (String secret : List.of(CONTROLLER, AGENTS.get(0), AGENTS.get(1))) {
            assertThat(upgrade.get(Secret.class, secret).getData()).as(secret).isEqualTo(install.get(Secret.class, secret).getData());
        }
    }

    @Test
    void withoutEveryCompleteSecretANewCaAndEveryCertificateAreMade() {
        Rendered install = HelmChart.render(AgentRenderTest.TWO_NODES);
        Secret controller = install.get(Secret.class, CONTROLLER);
        FakeKubeApi.instance().put(controller);
        assertNew(HelmChart.render(AgentRenderTest.TWO_NODES), controller);

        // storage-2's Secret complete, storage-1's without its key
        FakeKubeApi.instance().put(install.get(Secret.class, AGENTS.get(1)));
        Map<String, String> keyless = new HashMap<>(install.get(Secret.class, AGENTS.get(0)).getData());
        keyless.remove("tls.key");
        FakeKubeApi.instance().put(new SecretBuilder(install.get(Secret.class, AGENTS.get(0))).withData(keyless).build());
        assertNew(HelmChart.render(AgentRenderTest.TWO_NODES), controller);
    }

    @Test
    void anAgentWithoutItsSecretMeansANewCaAndEveryCertificate() {
        Rendered install = HelmChart.render(AgentRenderTest.TWO_NODES);
        Secret controller = install.get(Secret.class, CONTROLLER);
        FakeKubeApi.instance().put(controller);
        AGENTS.forEach(agent -> FakeKubeApi.instance().put(install.get(Secret.class, agent)));

        Map<String, Object> threeAgents = new HashMap<>(AgentRenderTest.TWO_NODES);
        threeAgents.put("tls", Map.of("externalAgents", List.of("storage-9")));
        Rendered upgrade = HelmChart.render(threeAgents);
        assertThat(upgrade.get(Secret.class, "pillar-pillar-csi-agent-storage-9-tls").getData()).containsKeys("tls.crt", "tls.key");
        assertThat(upgrade.get(Secret.class, CONTROLLER).getData().get("ca.crt")).isNotEqualTo(controller.getData().get("ca.crt"));
        assertThat(upgrade.get(Secret.class, AGENTS.get(0)).getData().get("tls.key"))
                .isNotEqualTo(install.get(Secret.class, AGENTS.get(0)).getData().get("tls.key"));
    }

    private static void assertNew(Rendered rendered, Secret old) {
        Map<String, String> controller = rendered.get(Secret.class, CONTROLLER).getData();
        assertThat(controller.get("ca.crt")).isNotEqualTo(old.getData().get("ca.crt"));
        assertThat(controller.get("tls.key")).isNotEqualTo(old.getData().get("tls.key"));
        for (String agent : AGENTS) {
            Map<String, String> data = rendered.get(Secret.class, agent).getData();
            assertThat(data).as(agent).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
            assertThat(data.get("ca.crt")).as(agent).isEqualTo(controller.get("ca.crt"));
        }
    }
}
