package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.Test;

/**
 * One identity per storage node, in the pods: one agent DaemonSet per storage node, pinned to it,
 * whose pods mount that node's certificate and key and no other's, so that root on one storage node
 * reads no other node's key (docs/threat-model.md). Every Secret an agent pod can reach is found by
 * walking all its volumes (projected sources included) and every container's environment.
 */
class AgentKeysPerNodeTest {
    private static final String PREFIX = "pillar-pillar-csi-";
    private static final int DNS = 2;

    @Test
    void oneDaemonSetPerStorageNodePinnedToItAndSelectingItsOwnPodsOnly() {
        Rendered rendered = HelmChart.render(AgentRenderTest.TWO_NODES);
        assertThat(rendered.agents()).extracting(d -> d.getMetadata().getName())
                .containsExactly(PREFIX + "agent-storage-1", PREFIX + "agent-storage-2.rack-b");
        for (String node : TlsModesTest.NODES) {
            DaemonSet agent = rendered.agent(node);
            assertThat(pinnedTo(agent)).as(node).containsExactly(node);
            Map<String, String> selector = agent.getSpec().getSelector().getMatchLabels();
            assertThat(selector).containsEntry("pillar.csi.io/storage-node", node).containsEntry("app.kubernetes.io/component", "agent");
            for (DaemonSet other : rendered.agents()) {
                boolean selects = other.getSpec().getTemplate().getMetadata().getLabels().entrySet().containsAll(selector.entrySet());
                assertThat(selects).as("%s selects the pods of %s", agent.getMetadata().getName(), other.getMetadata().getName())
                        .isEqualTo(other == agent);
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void addingOrChangingAStorageNodeLeavesTheOtherAgentsPodsAsTheyAre() {
        Map<String, Object> nodes = new HashMap<>((Map<String, Object>) ((Map<String, Object>) AgentRenderTest.TWO_NODES.get("agent")).get("nodes"));
        Rendered before = HelmChart.render(Map.of("agent", Map.of("nodes", nodes)));
        nodes.put("storage-3", Map.of("backends", List.of(Map.of("name", "tank", "type", "zfs", "pool", "tank"))));
        nodes.put("storage-2.rack-b", Map.of("backends", List.of(Map.of("name", "slow", "type", "lvm", "volumeGroup", "vg9"))));
        Rendered after = HelmChart.render(Map.of("agent", Map.of("nodes", nodes)));
        assertThat(after.agents()).hasSize(3);
        assertThat(after.agent("storage-1").getSpec()).isEqualTo(before.agent("storage-1").getSpec());
        assertThat(after.agent("storage-2.rack-b").getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/config"))
                .as("a changed node's agent restarts").isNotEqualTo(before.agent("storage-2.rack-b").getSpec().getTemplate()
                        .getMetadata().getAnnotations().get("checksum/config"));
    }

    @Test
    void eachStorageNodesAgentMountsItsOwnNodesSecretAndNoOther() throws Exception {
        for (String mode : List.of("generated", "cert-manager")) {
            Rendered rendered = HelmChart.render(values(Map.of("mode", mode, "externalAgents", List.of("nas-1"))));
            List<Set<String>> all = new ArrayList<>();
            for (String node : TlsModesTest.NODES) {
                Set<String> secrets = secretsOf(rendered.agent(node).getSpec().getTemplate().getSpec());
                assertThat(secrets).as("%s: the Secrets storage node %s's agent pod can read", mode, node)
                        .containsExactly(PREFIX + "agent-" + node + "-tls");
                all.add(secrets);
            }
            assertThat(all.stream().flatMap(Set::stream)).as(mode).doesNotHaveDuplicates();
            if (mode.equals("generated")) {
                // what each node mounts holds one key, its own node's: a certificate of its name
                for (String node : TlsModesTest.NODES) {
                    Secret secret = rendered.get(Secret.class, PREFIX + "agent-" + node + "-tls");
                    assertThat(secret.getData()).containsOnlyKeys("tls.crt", "tls.key", "ca.crt");
                    X509Certificate cert = GeneratedTlsTest.certificate(GeneratedTlsTest.pem(secret, "tls.crt"));
                    assertThat(cert.getSubjectAlternativeNames()).containsExactly(List.of(DNS, node + ".pillar-agent"));
                }
                // and no Secret holds more than one agent's key
                assertThat(rendered.all(Secret.class)).allSatisfy(s -> assertThat(s.getData().keySet())
                        .filteredOn(k -> k.endsWith(".key")).as(s.getMetadata().getName()).hasSizeLessThanOrEqualTo(1));
            }
        }
    }

    @Test
    void withSuppliedSecretsEveryAgentMountsTheOneSuppliedAsBefore() {
        Rendered rendered = HelmChart.render(values(Map.of("mode", "secrets",
                "secrets", Map.of("controller", "my-controller-cert", "agent", "my-agent-cert"))));
        assertThat(rendered.agents()).hasSize(2).allSatisfy(agent ->
                assertThat(secretsOf(agent.getSpec().getTemplate().getSpec())).containsExactly("my-agent-cert"));
    }

    @Test
    void longNodeNamesGiveShortDistinctValidNames() {
        String common = "storage-node-with-a-rather-long-name.rack-b.datacenter-1.example";
        Map<String, Object> backends = Map.of("backends", List.of(Map.of("name", "tank", "type", "zfs", "pool", "tank")));
        Rendered rendered = HelmChart.render(Map.of("agent", Map.of("nodes", Map.of(common + ".a", backends, common + ".b", backends))));
        assertThat(rendered.agents()).hasSize(2);
        Set<String> names = new HashSet<>();
        Set<String> labels = new HashSet<>();
        for (DaemonSet agent : rendered.agents()) {
            String name = agent.getMetadata().getName();
            String label = agent.getSpec().getSelector().getMatchLabels().get("pillar.csi.io/storage-node");
            assertThat(name).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?").startsWith(PREFIX + "agent-storage-node-");
            assertThat(label).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
            assertThat(agent.getMetadata().getLabels()).containsEntry("pillar.csi.io/storage-node", label);
            names.add(name);
            labels.add(label);
            // pinned by the node's full name all the same
            assertThat(pinnedTo(agent)).singleElement().asString().startsWith(common);
        }
        assertThat(names).hasSize(2);
        assertThat(labels).hasSize(2);
    }

    @Test
    void noAlertOrDashboardQueryNamesOneAgentWorkload() throws IOException {
        for (String file : List.of("alerts/pillar-csi.rules.yaml", "dashboards/pillar-csi.json")) {
            String text = Files.readString(HelmChart.dir().resolve(file));
            // the agents are selected by their metrics (and the Service by label), never by one DaemonSet's or pod's name
            assertThat(text).as(file).doesNotContain("kube_daemonset").doesNotContain("daemonset=").doesNotContain("pillar-csi-agent");
        }
    }

    /** Every Secret the pod's containers can read: secret and projected volumes, env and envFrom. */
    static Set<String> secretsOf(PodSpec pod) {
        Set<String> secrets = new HashSet<>();
        for (Volume volume : pod.getVolumes()) {
            if (volume.getSecret() != null) {
                secrets.add(volume.getSecret().getSecretName());
            }
            if (volume.getProjected() != null) {
                for (VolumeProjection source : volume.getProjected().getSources()) {
                    if (source.getSecret() != null) {
                        secrets.add(source.getSecret().getName());
                    }
                }
            }
        }
        for (Container container : Stream.concat(pod.getContainers().stream(),
                pod.getInitContainers() == null ? Stream.empty() : pod.getInitContainers().stream()).toList()) {
            for (EnvVar env : container.getEnv() == null ? List.<EnvVar>of() : container.getEnv()) {
                if (env.getValueFrom() != null && env.getValueFrom().getSecretKeyRef() != null) {
                    secrets.add(env.getValueFrom().getSecretKeyRef().getName());
                }
            }
            for (EnvFromSource from : container.getEnvFrom() == null ? List.<EnvFromSource>of() : container.getEnvFrom()) {
                if (from.getSecretRef() != null) {
                    secrets.add(from.getSecretRef().getName());
                }
            }
        }
        return secrets;
    }

    /** The node names the DaemonSet's pods may run on. */
    private static List<String> pinnedTo(DaemonSet agent) {
        return agent.getSpec().getTemplate().getSpec().getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms().stream().flatMap(t -> t.getMatchFields().stream())
                .filter(f -> f.getKey().equals("metadata.name") && f.getOperator().equals("In"))
                .flatMap(f -> f.getValues().stream()).toList();
    }

    private static Map<String, Object> values(Map<String, Object> tls) {
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        values.put("tls", tls);
        return values;
    }
}
