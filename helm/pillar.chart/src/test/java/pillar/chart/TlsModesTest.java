package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import org.junit.jupiter.api.Test;

/**
 * Mutual TLS between controller and agents: the chart's own certificates (the default, see
 * GeneratedTlsTest), issued by cert-manager, from supplied Secrets, or off when acknowledged; and
 * where the agent API listens in each.
 */
class TlsModesTest {
    /** Plaintext, acknowledged. */
    static final Map<String, Object> PLAINTEXT = Map.of("mode", "none", "acknowledgePlaintext", true);
    private static final String PREFIX = "pillar-pillar-csi-";
    /** The controller's files. */
    private static final Map<String, Object> TLS_FILES = Map.of(
            "cert", "/etc/pillar-csi/tls/tls.crt", "key", "/etc/pillar-csi/tls/tls.key", "ca", "/etc/pillar-csi/tls/ca.crt");
    private static final Map<String, Object> NODE_ADDRESS = Map.of("host-env", "PILLAR_NODE_IP", "port", 9500);

    @Test
    void plaintextWhenAcknowledgedNothingMountedNoCertificates() {
        Rendered rendered = HelmChart.render(merge(Map.of("tls", PLAINTEXT)));
        assertThat(certManagerObjects(rendered)).isEmpty();
        assertThat(rendered.all(io.fabric8.kubernetes.api.model.Secret.class)).isEmpty();
        assertThat(tlsVolume(controllerPod(rendered))).isNull();
        assertThat(rendered.agents()).hasSize(2).allSatisfy(agent -> assertThat(tlsVolume(agent.getSpec().getTemplate().getSpec())).isNull());
        assertThat(section(rendered.configFile(PREFIX + "controller", "controller.yaml"), "agents")).doesNotContainKey("tls");
        assertThat(section(rendered.configFile(PREFIX + "agent", "storage-1.yaml"), "agent")).doesNotContainKey("tls")
                .containsEntry("listen", NODE_ADDRESS);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theAgentListensOnTheNodesAddressUnlessToldAndZeroOnlyWhenWritten() {
        Rendered byDefault = HelmChart.render(AgentRenderTest.TWO_NODES);
        assertThat(Rendered.container(agentPod(byDefault), "pillar-agent").getEnv())
                .anySatisfy(env -> {
                    assertThat(env.getName()).isEqualTo("PILLAR_NODE_IP");
                    assertThat(env.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.hostIP");
                });
        for (String node : List.of("storage-1.yaml", "storage-2.rack-b.yaml")) {
            assertThat(section(byDefault.configFile(PREFIX + "agent", node), "agent")).containsEntry("listen", NODE_ADDRESS);
        }
        for (String host : List.of("0.0.0.0", "192.168.10.5")) {
            Map<String, Object> agent = new java.util.HashMap<>((Map<String, Object>) AgentRenderTest.TWO_NODES.get("agent"));
            agent.put("listenHost", host);
            Rendered told = HelmChart.render(Map.of("agent", agent));
            assertThat(section(told.configFile(PREFIX + "agent", "storage-1.yaml"), "agent"))
                    .containsEntry("listen", Map.of("host", host, "port", 9500));
        }
    }

    @Test
    void certManagerWithoutAnIssuerMakesItsOwnCaAndOneCertificatePerAgent() {
        Rendered rendered = HelmChart.render(merge(Map.of("tls", Map.of("mode", "cert-manager"))));
        assertThat(certManagerObjects(rendered)).extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
                .containsExactlyInAnyOrder(
                "Issuer/" + PREFIX + "selfsigned", "Certificate/" + PREFIX + "ca", "Issuer/" + PREFIX + "ca",
                "Certificate/" + PREFIX + "controller", "Certificate/" + PREFIX + "agent-storage-1",
                "Certificate/" + PREFIX + "agent-storage-2.rack-b");
        GenericKubernetesResource ca = certificate(rendered, "ca");
        assertThat((Object) ca.get("spec", "isCA")).isEqualTo(true);
        assertThat((Object) ca.get("spec", "issuerRef", "name")).isEqualTo(PREFIX + "selfsigned");

        GenericKubernetesResource controller = certificate(rendered, "controller");
        assertThat((Object) controller.get("spec", "secretName")).isEqualTo(PREFIX + "controller-tls");
        assertThat((Object) controller.get("spec", "commonName")).isEqualTo("pillar-controller");
        assertThat((Object) controller.get("spec", "dnsNames")).isEqualTo(List.of("pillar-controller"));
        assertThat((Object) controller.get("spec", "usages")).isEqualTo(List.of("digital signature", "client auth"));
        assertThat((Object) controller.get("spec", "privateKey", "encoding")).isEqualTo("PKCS8");
        assertThat((Object) controller.get("spec", "issuerRef")).isEqualTo(Map.of("name", PREFIX + "ca", "kind", "Issuer",
                "group", "cert-manager.io"));

        for (String node : NODES) {
            GenericKubernetesResource agent = certificate(rendered, "agent-" + node);
            assertThat((Object) agent.get("spec", "secretName")).isEqualTo(PREFIX + "agent-" + node + "-tls");
            assertThat((Object) agent.get("spec", "usages")).isEqualTo(List.of("digital signature", "server auth"));
            assertThat((Object) agent.get("spec", "dnsNames")).isEqualTo(List.of(node + ".pillar-agent"));
            assertThat((Object) agent.get("spec", "commonName")).isEqualTo(node + ".pillar-agent");
            assertThat((Object) agent.get("spec", "ipAddresses")).isNull();
            assertThat((Object) agent.get("spec", "privateKey", "encoding")).isEqualTo("PKCS8");
        }
        assertMounted(rendered, PREFIX + "controller-tls", "pillar-controller", true);
        // each node's agent mounts its own node's Secret, into the directory its agent reads
        for (String node : NODES) {
            assertOwnSecretMounted(rendered, node, PREFIX + "agent-" + node + "-tls");
        }
    }

    @Test
    void certManagerWithAClusterIssuerUsesItAndMakesNoCa() {
        Map<String, Object> nodes = Map.of("nodes", Map.of(
                "storage-1", Map.of("address", "10.0.0.11", "backends", List.of(Map.of("name", "tank", "type", "zfs", "pool", "tank")))));
        Rendered rendered = HelmChart.render(Map.of("agent", nodes, "tls", Map.of("mode", "cert-manager",
                "agentServerName", "agents.storage.lan", "controllerName", "csi.prod", "externalAgents", List.of("nas-1"),
                "certManager", Map.of("issuerRef", Map.of("name", "corp-ca", "kind", "ClusterIssuer")))));
        assertThat(certManagerObjects(rendered)).extracting(o -> o.getKind() + "/" + o.getMetadata().getName())
                .containsExactlyInAnyOrder("Certificate/" + PREFIX + "controller", "Certificate/" + PREFIX + "agent-storage-1",
                        "Certificate/" + PREFIX + "agent-nas-1");
        for (String name : List.of("controller", "agent-storage-1", "agent-nas-1")) {
            assertThat((Object) certificate(rendered, name).get("spec", "issuerRef"))
                    .isEqualTo(Map.of("name", "corp-ca", "kind", "ClusterIssuer", "group", "cert-manager.io"));
        }
        GenericKubernetesResource agent = certificate(rendered, "agent-storage-1");
        assertThat((Object) agent.get("spec", "dnsNames")).isEqualTo(List.of("storage-1.agents.storage.lan"));
        assertThat((Object) agent.get("spec", "ipAddresses")).isEqualTo(List.of("10.0.0.11"));
        assertThat((Object) certificate(rendered, "agent-nas-1").get("spec", "dnsNames")).isEqualTo(List.of("nas-1.agents.storage.lan"));
        assertThat((Object) certificate(rendered, "controller").get("spec", "dnsNames")).isEqualTo(List.of("csi.prod"));
        // the external agent has a certificate but no mount: it runs elsewhere
        assertThat(rendered.agents()).singleElement();
        assertOwnSecretMounted(rendered, "storage-1", PREFIX + "agent-storage-1-tls");
    }

    @Test
    void suppliedSecretsAreMountedAndNothingIsIssued() {
        Rendered rendered = HelmChart.render(merge(Map.of("tls", Map.of("mode", "secrets",
                "secrets", Map.of("controller", "my-controller-cert", "agent", "my-agent-cert")))));
        assertThat(certManagerObjects(rendered)).isEmpty();
        assertThat(rendered.all(io.fabric8.kubernetes.api.model.Secret.class)).isEmpty();
        // every storage node's agent mounts the one supplied Secret whole, as before
        assertThat(rendered.agents()).hasSize(2).allSatisfy(agent -> {
            Volume tls = tlsVolume(agent.getSpec().getTemplate().getSpec());
            assertThat(tls.getSecret().getSecretName()).isEqualTo("my-agent-cert");
            assertThat(tls.getSecret().getItems()).isNullOrEmpty();
        });
        assertMounted(rendered, "my-controller-cert", "pillar-controller", false);
    }

    /** The nodes of {@link AgentRenderTest#TWO_NODES}. */
    static final List<String> NODES = List.of("storage-1", "storage-2.rack-b");

    /**
     * Both workloads mount their TLS files; the agents admit the controller by name and listen on the
     * node's address; with {@code perNode}, each agent reads the files of its own node's directory.
     */
    @SuppressWarnings("unchecked")
    static void assertMounted(Rendered rendered, String controllerSecret, String controllerName, boolean perNode) {
        assertThat(tlsVolume(controllerPod(rendered)).getSecret().getSecretName()).isEqualTo(controllerSecret);
        assertThat(tlsMount(controllerPod(rendered), "pillar-controller").getReadOnly()).isTrue();
        for (var agent : rendered.agents()) {
            assertThat(tlsMount(agent.getSpec().getTemplate().getSpec(), "pillar-agent").getReadOnly()).isTrue();
        }
        // the sidecars never see the key
        for (String sidecar : List.of("csi-provisioner", "csi-attacher", "csi-resizer")) {
            assertThat(Rendered.container(controllerPod(rendered), sidecar).getVolumeMounts())
                    .noneMatch(m -> m.getName().equals("tls"));
        }
        assertThat(section(rendered.configFile(PREFIX + "controller", "controller.yaml"), "agents"))
                .containsEntry("tls", TLS_FILES);
        for (String node : NODES) {
            String dir = perNode ? "/etc/pillar-csi/tls/" + node : "/etc/pillar-csi/tls";
            Map<String, Object> agentTls = Map.of("cert", dir + "/tls.crt", "key", dir + "/tls.key", "ca", dir + "/ca.crt",
                    "client-names", List.of(controllerName));
            assertThat(section(rendered.configFile(PREFIX + "agent", node + ".yaml"), "agent")).containsEntry("tls", agentTls)
                    .containsEntry("listen", NODE_ADDRESS);
        }
    }

    @Test
    void oneNameForTheControllerAndTheAgentsIsRefused() {
        for (String mode : List.of("generated", "cert-manager")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> HelmChart.template(merge(Map.of("tls", Map.of("mode", mode,
                    "controllerName", "pillar", "agentServerName", "pillar"))), "1.25.0")).as(mode)
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("would pass for an agent's");
            // the controller named like one storage node's agent
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> HelmChart.template(merge(Map.of("tls", Map.of("mode", mode,
                    "controllerName", "storage-1.pillar-agent"))), "1.25.0")).as(mode)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("tls.controllerName is storage-1.pillar-agent, the name of the agent storage-1's certificate")
                    .hasMessageContaining("would pass for that agent's");
        }
    }

    @Test
    void addressesSharedByEveryAgentsCertificateAreRefused() {
        for (String mode : List.of("generated", "cert-manager")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> HelmChart.template(merge(Map.of("tls", Map.of("mode", mode,
                    "agentIpAddresses", List.of("10.0.0.11")))), "1.25.0")).as(mode)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("tls.agentIpAddresses (10.0.0.11) would put the same addresses in every agent's certificate");
        }
    }

    private static Map<String, Object> merge(Map<String, Object> values) {
        Map<String, Object> all = new java.util.HashMap<>(AgentRenderTest.TWO_NODES);
        all.putAll(values);
        return all;
    }

    /** The node's agent mounts {@code secret}'s tls.crt, tls.key and ca.crt into the directory its config names. */
    static void assertOwnSecretMounted(Rendered rendered, String node, String secret) {
        Volume tls = tlsVolume(rendered.agent(node).getSpec().getTemplate().getSpec());
        assertThat(tls.getSecret().getSecretName()).as(node).isEqualTo(secret);
        assertThat(tls.getSecret().getItems()).extracting(i -> i.getKey() + ">" + i.getPath()).as(node)
                .containsExactly("tls.crt>" + node + "/tls.crt", "tls.key>" + node + "/tls.key", "ca.crt>" + node + "/ca.crt");
    }

    private static List<GenericKubernetesResource> certManagerObjects(Rendered rendered) {
        return rendered.all(GenericKubernetesResource.class).stream()
                .filter(o -> o.getApiVersion().startsWith("cert-manager.io/")).toList();
    }

    private static GenericKubernetesResource certificate(Rendered rendered, String suffix) {
        return certManagerObjects(rendered).stream()
                .filter(o -> o.getKind().equals("Certificate") && o.getMetadata().getName().equals(PREFIX + suffix))
                .findFirst().orElseThrow();
    }

    private static PodSpec controllerPod(Rendered rendered) {
        return rendered.controller().getSpec().getTemplate().getSpec();
    }

    private static PodSpec agentPod(Rendered rendered) {
        return rendered.agent().getSpec().getTemplate().getSpec();
    }

    private static Volume tlsVolume(PodSpec pod) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals("tls")).findFirst().orElse(null);
    }

    private static VolumeMount tlsMount(PodSpec pod, String container) {
        return Rendered.container(pod, container).getVolumeMounts().stream().filter(m -> m.getName().equals("tls"))
                .filter(m -> m.getMountPath().equals("/etc/pillar-csi/tls")).findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> section(Map<String, Object> config, String key) {
        return (Map<String, Object>) config.get(key);
    }
}
