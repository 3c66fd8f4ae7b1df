package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** NOTES.txt, as `helm install` prints it (a client-only dry run: no cluster). */
class NotesTest {
    private static final String WARNING = "WARNING: the agent API is served WITHOUT TLS (tls.mode=none).";

    @Test
    void plaintextIsALoudWarning() {
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        values.put("tls", TlsModesTest.PLAINTEXT);
        String notes = notes(values);
        assertThat(notes).contains(WARNING)
                .contains("Any host that reaches an agent's port 9500 can create, export and delete volumes.")
                .contains("Agents run on the storage nodes storage-1, storage-2.rack-b, on port 9500.")
                .contains("\n  nodeName: storage-1\n  port: 9500\n---")
                .doesNotContain("tls:");
    }

    @Test
    void mutualTlsNamesTheSecretAndServerNameAPillarAgentNeeds() {
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        values.put("tls", Map.of("mode", "cert-manager"));
        String notes = notes(values);
        assertThat(notes).doesNotContain("WITHOUT TLS")
                .contains("""
                          tls:
                            mode: secret
                            secretName: pillar-pillar-csi-agent-storage-1-tls
                            serverName: storage-1.pillar-agent
                        """)
                .contains("cert-manager issues the certificates (Secrets pillar-pillar-csi-controller-tls and one per storage node,\n"
                        + "pillar-pillar-csi-agent-<node>-tls, named <node>.pillar-agent)");
    }

    @Test
    void aNodeWithoutAnAddressGetsNoProtocolButSaysWhatToSet() {
        assertThat(notes(AgentRenderTest.TWO_NODES))
                .contains("# No PillarProtocol for storage-1: set agent.nodes.storage-1.address to the IP the workers reach it at")
                .doesNotContain("kind: PillarProtocol")
                .contains("kind: PillarStorageClass\nmetadata:\n  name: storage-2.rack-b-fast\nspec:\n"
                        + "  store: storage-2.rack-b-fast\n  protocol: storage-2.rack-b-nvme-tcp\n");
    }

    @Test
    void withoutStorageNodesItSaysNoAgentWasInstalled() {
        assertThat(notes(Map.of())).doesNotContain("WITHOUT TLS")
                .contains("No storage node is configured (agent.nodes is empty): no agent DaemonSet was installed.");
    }

    @Test
    void byDefaultTheChartsOwnCertificatesAndHowToRotateThem() {
        String notes = notes(AgentRenderTest.TWO_NODES);
        assertThat(notes).doesNotContain("WITHOUT TLS")
                .contains("secretName: pillar-pillar-csi-agent-storage-2.rack-b-tls")
                .contains("serverName: storage-2.rack-b.pillar-agent")
                .contains("The agent API is mutual TLS with certificates the chart made (Secrets pillar-pillar-csi-controller-tls and\n"
                        + "one per agent, pillar-pillar-csi-agent-<node>-tls, one CA, each named <node>.pillar-agent);")
                .contains("agents admit only the client named pillar-controller.")
                .contains("Rotate: delete pillar-pillar-csi-controller-tls, then helm upgrade (same values): a new CA and every certificate.");
    }

    @Test
    void metricsNameTheirServicesAndWhatElseIsOn() {
        assertThat(notes(AgentRenderTest.TWO_NODES))
                .contains("behind the headless Services pillar-pillar-csi-{controller,node,agent}-metrics.")
                .contains("Set metrics.serviceMonitor.enabled=true for Prometheus Operator ServiceMonitors.")
                .doesNotContain("Grafana");
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        values.put("metrics", Map.of("serviceMonitor", Map.of("enabled", true, "force", true), "dashboard", Map.of("enabled", true)));
        assertThat(notes(values)).contains("ServiceMonitors scrape them every 30s:")
                .contains("The Grafana dashboard is in the ConfigMap pillar-pillar-csi-dashboard (label grafana_dashboard=1).");
        assertThat(notes(Map.of("metrics", Map.of("enabled", false))))
                .contains("Metrics are off (metrics.enabled=false): no workload serves /metrics.");
    }

    private static String notes(Map<String, Object> values) {
        var install = HelmChart.helm().install().withName(HelmChart.RELEASE).withNamespace(HelmChart.NAMESPACE)
                .withKubeVersion("1.25.0").clientOnly().dryRun();
        install = install.withValuesFile(HelmChart.valuesFile(HelmChart.withTestRegistry(values)));
        String output = install.call().getOutput();
        return output.substring(output.indexOf("NOTES:"));
    }
}
