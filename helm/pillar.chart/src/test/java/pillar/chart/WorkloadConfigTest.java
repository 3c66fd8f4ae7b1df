package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.VolumeMount;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.config.AgentConfig;
import pillar.agent.config.BackendConfig;
import pillar.agent.config.ListenAddress;
import pillar.api.agent.v1.BackendKind;
import pillar.runtime.server.CsiEndpoint;
import pillar.runtime.server.LogFormat;
import pillar.runtime.server.WorkloadConfig;
import pillar.controller.ControllerConfig;
import pillar.node.NodeMain;
import pillar.node.config.NodeConfig;

/**
 * The rendered configuration files read by the workloads' own readers, with the containers' own
 * arguments: the ConfigMap is written where the container mounts it (a temporary directory here),
 * $(NODE_NAME) expanded as the kubelet does. Every value differs from the workloads' defaults, so a
 * key the reader does not know would show.
 */
class WorkloadConfigTest {
    @TempDir
    Path dir;

    @Test
    void controllerReadsEverySetting() throws IOException {
        Rendered rendered = HelmChart.render(Map.of("controller", Map.of("healthPort", 9818, "config", Map.of(
                "pollInterval", "45s", "backoffInitial", "2s", "backoffMax", "5m", "resync", "15m",
                "abandonedCreateGrace", "20m", "agentDeadline", "20s", "agentMutationDeadline", "150s", "agentReadAttempts", 5)),
                "tls", TlsModesTest.PLAINTEXT));
        PodSpec pod = rendered.controller().getSpec().getTemplate().getSpec();
        Container controller = Rendered.container(pod, "pillar-controller");
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load(args(rendered, pod, controller, Map.of())));
        assertThat(config.reconcile().pollInterval()).isEqualTo(Duration.ofSeconds(45));
        assertThat(config.reconcile().backoff().initial()).isEqualTo(Duration.ofSeconds(2));
        assertThat(config.reconcile().backoff().max()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.reconcile().resync()).isEqualTo(Duration.ofMinutes(15));
        assertThat(config.abandonedCreateGrace()).isEqualTo(Duration.ofMinutes(20));
        assertThat(config.agentSettings().deadline()).isEqualTo(Duration.ofSeconds(20));
        assertThat(config.agentSettings().mutationDeadline()).isEqualTo(Duration.ofSeconds(150));
        assertThat(config.agentSettings().readAttempts()).isEqualTo(5);
        assertThat(config.agentTls()).isEmpty();
        assertThat(config.kubeconfig()).isEmpty();
        assertEndpoint(config.endpoint(), controller, 9818);
        for (String sidecar : List.of("csi-provisioner", "csi-attacher", "csi-resizer")) {
            assertThat(Rendered.container(pod, sidecar).getArgs()).contains("--csi-address=" + config.endpoint().socket());
        }
    }

    @Test
    void nodeReadsEverySettingAndItsNameFromTheDownwardApi() throws IOException {
        Rendered rendered = HelmChart.render(Map.of("kubeletDir", "/data/kubelet",
                "node", Map.of("healthPort", 9819, "attachTimeoutSeconds", 90)));
        PodSpec pod = rendered.nodePlugin().getSpec().getTemplate().getSpec();
        Container node = Rendered.container(pod, "pillar-node");
        String[] args = args(rendered, pod, node, Map.of("spec.nodeName", "worker-7"));
        NodeConfig config = NodeConfig.from(WorkloadConfig.load(args));
        assertThat(config.nodeId().value()).isEqualTo("worker-7");
        assertThat(config.kubeletDir()).isEqualTo(Path.of(mountPath(node, "kubelet-dir"))).isEqualTo(Path.of("/data/kubelet"));
        assertThat(config.stateDir()).isEqualTo(Path.of(mountPath(node, "state")));
        assertThat(config.hostNqnFile().getParent()).isEqualTo(Path.of(mountPath(node, "etc-nvme")));
        assertThat(config.sysRoot()).isEqualTo(Path.of(mountPath(node, "sys")));
        assertThat(config.devRoot()).isEqualTo(Path.of(mountPath(node, "dev")));
        assertThat(config.attachTimeout()).isEqualTo(Duration.ofSeconds(90));
        // health listens on the node's address, which the kubelet puts in PILLAR_NODE_IP (the pod's IP on the host network)
        assertThat(node.getEnv()).anySatisfy(variable -> {
            assertThat(variable.getName()).isEqualTo("PILLAR_NODE_IP");
            assertThat(variable.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.hostIP");
        });
        CsiEndpoint endpoint = CsiEndpoint.from(WorkloadConfig.load(args), NodeMain.DEFAULT_HEALTH_PORT,
                name -> name.equals("PILLAR_NODE_IP") ? java.util.Optional.of("192.0.2.7") : java.util.Optional.empty());
        assertThat(endpoint.healthHost()).isEqualTo("192.0.2.7");
        assertEndpoint(endpoint, node, 9819);
        assertThat(Rendered.container(pod, "node-driver-registrar").getArgs())
                .contains("--csi-address=" + endpoint.socket(),
                        "--kubelet-registration-path=/data/kubelet/plugins/pillar.csi.io/" + endpoint.socket().getFileName());
    }

    @Test
    void everyWorkloadLogsAsTheChartSays() throws IOException {
        for (String format : List.of("text", "json")) {
            Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
            values.put("tls", TlsModesTest.PLAINTEXT);
            values.put("logFormat", format);
            Rendered rendered = HelmChart.render(values);
            LogFormat expected = LogFormat.valueOf(format.toUpperCase(java.util.Locale.ROOT));
            PodSpec controller = rendered.controller().getSpec().getTemplate().getSpec();
            PodSpec node = rendered.nodePlugin().getSpec().getTemplate().getSpec();
            PodSpec agent = rendered.agent().getSpec().getTemplate().getSpec();
            assertThat(LogFormat.from(WorkloadConfig.load(args(rendered, controller,
                    Rendered.container(controller, "pillar-controller"), Map.of())))).isEqualTo(expected);
            assertThat(LogFormat.from(WorkloadConfig.load(args(rendered, node, Rendered.container(node, "pillar-node"),
                    Map.of("spec.nodeName", "worker-7"))))).isEqualTo(expected);
            assertThat(LogFormat.from(WorkloadConfig.load(args(rendered, agent, Rendered.container(agent, "pillar-agent"),
                    Map.of("spec.nodeName", "storage-1"))))).isEqualTo(expected);
        }
    }

    @Test
    void eachAgentReadsItsOwnBackends() throws IOException {
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        Map<String, Object> agent = new HashMap<>(Map.of("listenHost", "10.0.0.5", "port", 9600, "healthPort", 9820));
        agent.put("nodes", ((Map<?, ?>) AgentRenderTest.TWO_NODES.get("agent")).get("nodes"));
        values.put("agent", agent);
        values.put("tls", TlsModesTest.PLAINTEXT);
        Rendered rendered = HelmChart.render(values);
        PodSpec pod = rendered.agent().getSpec().getTemplate().getSpec();
        Container container = Rendered.container(pod, "pillar-agent");

        AgentConfig first = AgentConfig.from(WorkloadConfig.load(
                args(rendered, pod, container, Map.of("spec.nodeName", "storage-1"))));
        assertThat(first.backends())
                .containsExactly(new BackendConfig("tank", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s/volumes"));
        // each read in its own node's pod, whose DaemonSet runs on that node only
        PodSpec secondPod = rendered.agent("storage-2.rack-b").getSpec().getTemplate().getSpec();
        AgentConfig second = AgentConfig.from(WorkloadConfig.load(
                args(rendered, secondPod, Rendered.container(secondPod, "pillar-agent"), Map.of("spec.nodeName", "storage-2.rack-b"))));
        assertThat(second.backends()).containsExactly(
                new BackendConfig("slow", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", ""),
                // overProvisioningRatio 2.5 in the values reaches the agent's backend
                new BackendConfig("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg1", "pool0", new java.math.BigDecimal("2.5")));
        for (AgentConfig config : List.of(first, second)) {
            assertThat(config.listenHost()).isEqualTo("10.0.0.5");
            assertThat(config.healthHost()).as("health on the node's address too").isEqualTo("10.0.0.5");
            assertThat(config.listenPort()).isEqualTo(9600).isEqualTo(port(container, "agent"));
            assertThat(config.healthPort()).isEqualTo(9820).isEqualTo(port(container, "metrics"))
                    .isEqualTo(container.getReadinessProbe().getHttpGet().getPort().getIntVal());
            assertThat(config.stateDir()).as("in the mounted host directory, the release's own")
                    .isEqualTo(Path.of(mountPath(container, "state"), "storage-system.pillar", "agent"));
            assertThat(config.legacyStateDir()).contains(Path.of(mountPath(container, "state"), "agent"));
            assertThat(config.configfsRoot()).isEqualTo(Path.of(mountPath(container, "configfs")));
            assertThat(config.tls()).isEmpty();
        }
    }

    @Test
    void withTlsBothReadTheMountedSecretsFiles() throws IOException {
        Map<String, Object> values = new HashMap<>(AgentRenderTest.TWO_NODES);
        values.put("tls", Map.of("mode", "cert-manager"));
        Rendered rendered = HelmChart.render(values);
        // the readers insist the files are readable: the message names the mounted Secret's file
        PodSpec controllerPod = rendered.controller().getSpec().getTemplate().getSpec();
        Container controller = Rendered.container(controllerPod, "pillar-controller");
        String controllerTls = mountPath(controller, "tls");
        String[] controllerArgs = args(rendered, controllerPod, controller, Map.of());
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load(controllerArgs)))
                .hasMessage("agents.tls: " + controllerTls + "/tls.crt is not a readable file");
        PodSpec agentPod = rendered.agent().getSpec().getTemplate().getSpec();
        Container agent = Rendered.container(agentPod, "pillar-agent");
        String agentTls = mountPath(agent, "tls");
        String[] agentArgs = args(rendered, agentPod, agent, Map.of("spec.nodeName", "storage-1"));
        // the address comes from PILLAR_NODE_IP, which the kubelet sets from status.hostIP
        ListenAddress nodeIp = new ListenAddress(Path.of("/nonexistent"),
                name -> name.equals("PILLAR_NODE_IP") ? Optional.of("10.0.0.7") : Optional.empty(), iface -> List.of());
        assertThatThrownBy(() -> AgentConfig.from(WorkloadConfig.load(agentArgs), nodeIp))
                .hasMessage("agent.tls: cannot read " + agentTls + "/storage-1/tls.crt");
    }

    /**
     * The container's arguments as the kubelet would pass them, with its config volume (the
     * ConfigMap) written to a local directory that stands in for the mount.
     */
    private String[] args(Rendered rendered, PodSpec pod, Container container, Map<String, String> downwardApi)
            throws IOException {
        String mountPath = mountPath(container, "config");
        String configMap = pod.getVolumes().stream().filter(v -> v.getName().equals("config")).findFirst().orElseThrow()
                .getConfigMap().getName();
        Path local = Files.createDirectories(dir.resolve(container.getName()));
        for (Map.Entry<String, String> file : rendered.get(ConfigMap.class, configMap).getData().entrySet()) {
            Files.writeString(local.resolve(file.getKey()), file.getValue());
        }
        return container.getArgs().stream().map(arg -> {
            String expanded = arg;
            for (EnvVar env : container.getEnv() == null ? List.<EnvVar>of() : container.getEnv()) {
                String value = downwardApi.get(env.getValueFrom().getFieldRef().getFieldPath());
                if (value != null) {
                    expanded = expanded.replace("$(" + env.getName() + ")", value);
                }
            }
            assertThat(expanded).as("every variable of %s is set", arg).doesNotContain("$(");
            return expanded.replace(mountPath, local.toString());
        }).toArray(String[]::new);
    }

    private static void assertEndpoint(CsiEndpoint endpoint, Container container, int healthPort) {
        assertThat(endpoint.healthPort()).isEqualTo(healthPort).isEqualTo(port(container, "metrics"))
                .isEqualTo(container.getLivenessProbe().getHttpGet().getPort().getIntVal());
        assertThat(endpoint.socket().getParent()).isEqualTo(Path.of(mountPath(container, container.getName().equals("pillar-node")
                ? "plugin-dir" : "socket-dir")));
    }

    private static int port(Container container, String name) {
        return container.getPorts().stream().filter(p -> p.getName().equals(name)).findFirst().orElseThrow().getContainerPort();
    }

    private static String mountPath(Container container, String volume) {
        return container.getVolumeMounts().stream().filter(m -> m.getName().equals(volume)).map(VolumeMount::getMountPath)
                .findFirst().orElseThrow(() -> new AssertionError(container.getName() + " mounts no volume " + volume));
    }
}
