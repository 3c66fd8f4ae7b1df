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
 * would) and renders complete ones again byte for byte; without both, a new CA and both certificates.
 */
class GeneratedTlsReuseTest {
    private static final String CONTROLLER = "pillar-pillar-csi-controller-tls";
    private static final String AGENT = "pillar-pillar-csi-agent-tls";

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
        Rendered install = HelmChart.render(Map.of());
        Secret controller = install.get(Secret.class, CONTROLLER);
        Map<String, String> keyless = new HashMap<>(install.get(Secret.class, AGENT).getData());
        keyless.remove("tls.key");
        Secret agentWithoutKey = new SecretBuilder(install.get(Secret.class, AGENT)).withData(keyless).build();

        FakeKubeApi.instance().put(controller);
        assertNew(HelmChart.render(Map.of()), controller);
        FakeKubeApi.instance().put(agentWithoutKey);
        assertNew(HelmChart.render(Map.of()), controller);
    }

    private static void assertNew(Rendered rendered, Secret old) {
        Map<String, String> controller = rendered.get(Secret.class, CONTROLLER).getData();
        Map<String, String> agent = rendered.get(Secret.class, AGENT).getData();
        assertThat(agent).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
        assertThat(controller.get("ca.crt")).isEqualTo(agent.get("ca.crt")).isNotEqualTo(old.getData().get("ca.crt"));
        assertThat(controller.get("tls.key")).isNotEqualTo(old.getData().get("tls.key"));
    }
}
