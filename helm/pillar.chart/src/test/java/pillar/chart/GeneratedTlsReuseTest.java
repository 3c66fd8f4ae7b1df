package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The generated mode keeps its certificates across {@code helm upgrade}: templates/tls/generated.yaml
 * reads both Secrets back with {@code lookup} (answered here by {@link FakeKubeApi}, as a cluster
 * would) and renders complete ones again byte for byte; without both, or without the files of an
 * agent (a node added), a new CA and every certificate.
 */
class GeneratedTlsReuseTest {
    private static final String CONTROLLER = "pillar-pillar-csi-controller-tls";
    private static final String AGENT = "pillar-pillar-csi-agents-tls";

    @AfterEach
    void emptyCluster() {
        FakeKubeApi.instance().clear();
    }

    @Test
    void bothExistingSecretsAreRenderedAgainByteForByte() {
        Rendered install = HelmChart.render(AgentRenderTest.TWO_NODES);
        FakeKubeApi.instance().put(install.get(Secret.class, CONTROLLER));
        FakeKubeApi.instance().put(install.get(Secret.class, AGENT));

        Rendered upgrade = HelmChart.render(AgentRenderTest.TWO_NODES);
        assertThat(upgrade.get(Secret.class, CONTROLLER).getData()).isEqualTo(install.get(Secret.class, CONTROLLER).getData());
        assertThat(upgrade.get(Secret.class, AGENT).getData()).isEqualTo(install.get(Secret.class, AGENT).getData());
    }

    @Test
    void withoutBothCompleteSecretsANewCaAndBothCertificatesAreMade() {
        Rendered install = HelmChart.render(AgentRenderTest.TWO_NODES);
        Secret controller = install.get(Secret.class, CONTROLLER);
        Map<String, String> keyless = new HashMap<>(install.get(Secret.class, AGENT).getData());
        keyless.remove("storage-1.key");
        Secret agentWithoutKey = new SecretBuilder(install.get(Secret.class, AGENT)).withData(keyless).build();

        FakeKubeApi.instance().put(controller);
        assertNew(HelmChart.render(AgentRenderTest.TWO_NODES), controller);
        FakeKubeApi.instance().put(agentWithoutKey);
        assertNew(HelmChart.render(AgentRenderTest.TWO_NODES), controller);
    }

    @Test
    void anAgentWithoutItsFilesMeansANewCaAndEveryCertificate() {
        Rendered install = HelmChart.render(AgentRenderTest.TWO_NODES);
        Secret controller = install.get(Secret.class, CONTROLLER);
        FakeKubeApi.instance().put(controller);
        FakeKubeApi.instance().put(install.get(Secret.class, AGENT));

        Map<String, Object> threeNodes = new HashMap<>(AgentRenderTest.TWO_NODES);
        threeNodes.put("tls", Map.of("externalAgents", java.util.List.of("storage-9")));
        Rendered upgrade = HelmChart.render(threeNodes);
        assertThat(upgrade.get(Secret.class, AGENT).getData()).containsKeys("storage-9.crt", "storage-9.key");
        assertThat(upgrade.get(Secret.class, CONTROLLER).getData().get("ca.crt")).isNotEqualTo(controller.getData().get("ca.crt"));
    }

    private static void assertNew(Rendered rendered, Secret old) {
        Map<String, String> controller = rendered.get(Secret.class, CONTROLLER).getData();
        Map<String, String> agent = rendered.get(Secret.class, AGENT).getData();
        assertThat(agent).containsOnlyKeys("ca.crt", "storage-1.crt", "storage-1.key", "storage-2.rack-b.crt",
                "storage-2.rack-b.key");
        assertThat(controller.get("ca.crt")).isEqualTo(agent.get("ca.crt")).isNotEqualTo(old.getData().get("ca.crt"));
        assertThat(controller.get("tls.key")).isNotEqualTo(old.getData().get("tls.key"));
    }
}
