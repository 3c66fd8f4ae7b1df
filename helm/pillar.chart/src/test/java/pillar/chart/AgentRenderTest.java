package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.chart.ControllerRenderTest.mount;
import static pillar.chart.ControllerRenderTest.mounts;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.Test;

/** The agent DaemonSet on two storage nodes, one with ZFS and one with LVM, each reading its own config. */
class AgentRenderTest {
    static final Map<String, Object> TWO_NODES = Map.of("agent", Map.of("nodes", Map.of(
            "storage-1", Map.of("backends", List.of(
                    Map.of("name", "tank", "type", "zfs", "pool", "tank", "parentDataset", "k8s/volumes"))),
            "storage-2.rack-b", Map.of("backends", List.of(
                    Map.of("name", "slow", "type", "lvm", "volumeGroup", "vg0"),
                    Map.of("name", "fast", "type", "lvm-thin", "volumeGroup", "vg1", "thinPool", "pool0",
                            "overProvisioningRatio", 2.5))))));

    private final Rendered rendered = HelmChart.render(TWO_NODES);
    private final DaemonSet daemonSet = rendered.agent();
    private final PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();

    @Test
    void oneConfigFilePerStorageNodeWithItsOwnBackends() {
        assertThat(rendered.get(ConfigMap.class, "pillar-pillar-csi-agent").getData())
                .containsOnlyKeys("storage-1.yaml", "storage-2.rack-b.yaml");
        assertThat(rendered.configFile("pillar-pillar-csi-agent", "storage-1.yaml")).isEqualTo(Map.of(
                "agent", Map.of(
                        "node-name", "storage-1",
                        "installation-id", "storage-system.pillar",
                        "listen", Map.of("host-env", "PILLAR_NODE_IP", "port", 9500),
                        // the release's own state directory; the one every release shared before moves there
                        "state-dir", "/var/lib/pillar-csi/storage-system.pillar/agent",
                        "legacy-state-dir", "/var/lib/pillar-csi/agent",
                        "configfs-root", "/sys/kernel/config",
                        // its own node's certificate (one per storage node)
                        "tls", Map.of("cert", "/etc/pillar-csi/tls/storage-1/tls.crt", "key", "/etc/pillar-csi/tls/storage-1/tls.key",
                                "ca", "/etc/pillar-csi/tls/storage-1/ca.crt", "client-names", List.of("pillar-controller")),
                        "backends", List.of(
                                Map.of("name", "tank", "type", "zfs", "pool", "tank", "parent-dataset", "k8s/volumes"))),
                "health", Map.of("port", 9810),
                "metrics", Map.of("enabled", true),
                "log", Map.of("format", "text", "level", "info")));
        assertThat(rendered.configFile("pillar-pillar-csi-agent", "storage-2.rack-b.yaml"))
                .extractingByKey("agent").asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("backends", List.of(
                        Map.of("name", "slow", "type", "lvm", "volume-group", "vg0"),
                        Map.of("name", "fast", "type", "lvm-thin", "volume-group", "vg1", "thin-pool", "pool0",
                                "over-provisioning-ratio", "2.5")));
    }

    @Test
    void runsOnExactlyTheConfiguredNodesAndPicksItsFileByNodeName() {
        assertThat(rendered.agents()).extracting(d -> d.getMetadata().getName())
                .containsExactly("pillar-pillar-csi-agent-storage-1", "pillar-pillar-csi-agent-storage-2.rack-b");
        for (String node : TlsModesTest.NODES) {
            assertThat(rendered.agent(node).getSpec().getTemplate().getSpec().getAffinity().getNodeAffinity()
                    .getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms())
                    .singleElement().satisfies((NodeSelectorTerm term) -> {
                        assertThat(term.getMatchExpressions()).isNullOrEmpty();
                        assertThat(term.getMatchFields()).singleElement().satisfies(field -> {
                            assertThat(field.getKey()).isEqualTo("metadata.name");
                            assertThat(field.getOperator()).isEqualTo("In");
                            assertThat(field.getValues()).as(node).containsExactly(node);
                        });
                    });
        }
        Container agent = Rendered.container(pod, "pillar-agent");
        assertThat(agent.getArgs()).containsExactly("--config", "/etc/pillar-csi/config/$(NODE_NAME).yaml");
        // the node's name picks the file; its address is where the agent API listens
        assertThat(agent.getEnv()).extracting(e -> e.getName() + "=" + e.getValueFrom().getFieldRef().getFieldPath())
                .containsExactly("NODE_NAME=spec.nodeName", "PILLAR_NODE_IP=status.hostIP");
        assertThat(pod.getNodeSelector()).isNullOrEmpty();
        assertThat(pod.getTolerations()).extracting(t -> t.getOperator()).containsExactly("Exists");
    }

    @Test
    void everyAgentOfTheReleaseGetsTheConfiguredInstallationIdAndABadOneIsRefused() {
        Map<String, Object> values = Map.of("agent", Map.of("nodes", ((Map<?, ?>) TWO_NODES.get("agent")).get("nodes"),
                "installationId", "prod.pillar"));
        Rendered withId = HelmChart.render(values);
        for (String file : List.of("storage-1.yaml", "storage-2.rack-b.yaml")) {
            assertThat(withId.configFile("pillar-pillar-csi-agent", file)).extractingByKey("agent")
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("installation-id", "prod.pillar");
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> HelmChart.template(Map.of("agent", Map.of("installationId", "a b")),
                "1.25.0")).isInstanceOf(IllegalStateException.class).hasMessageContaining("installationId");
    }

    @Test
    void aNodeSelectorNarrowsTheStorageNodesFurther() {
        Map<String, Object> values = Map.of("agent", Map.of("nodes", ((Map<?, ?>) TWO_NODES.get("agent")).get("nodes"),
                "nodeSelector", Map.of("pillar.csi.io/storage", "true")));
        PodSpec narrowed = HelmChart.render(values).agent().getSpec().getTemplate().getSpec();
        assertThat(narrowed.getNodeSelector()).containsExactly(Map.entry("pillar.csi.io/storage", "true"));
    }

    @Test
    void privilegedOnTheHostNetworkWithConfigfsDevAndItsStateDirectory() {
        assertThat(pod.getHostNetwork()).isTrue();
        assertThat(pod.getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        Container agent = Rendered.container(pod, "pillar-agent");
        assertThat(agent.getImage()).isEqualTo(HelmChart.TEST_REGISTRY + "/pillar-csi/agent:0.1.0");
        assertThat(agent.getSecurityContext().getPrivileged()).isTrue();
        assertThat(agent.getPorts()).extracting(p -> p.getName() + ":" + p.getContainerPort())
                .containsExactly("agent:9500", "metrics:9810");
        ControllerRenderTest.assertHealthProbes(agent, 9810);
        assertThat(mounts(agent)).startsWith(
                mount("configfs", "/sys/kernel/config", null),
                mount("dev", "/dev", null),
                mount("state", "/var/lib/pillar-csi", null),
                mount("config", "/etc/pillar-csi/config", true));
        assertThat(NodeRenderTest.hostPaths(pod)).startsWith(
                "configfs=/sys/kernel/config:Directory",
                "dev=/dev:Directory",
                "modules=/lib/modules:Directory",
                "state=/var/lib/pillar-csi:DirectoryOrCreate");
    }

    @Test
    void lvmRunsWithTheHostsLocksConfigurationUdevAndSemaphores() {
        PodSpec pod = rendered.agent("storage-2.rack-b").getSpec().getTemplate().getSpec();
        Container agent = Rendered.container(pod, "pillar-agent");
        assertThat(mounts(agent)).containsSequence(
                mount("lvm-config", "/etc/lvm", null),
                mount("lvm-locks", "/run/lock/lvm", null),
                mount("lvm-run", "/run/lvm", null),
                mount("udev", "/run/udev", true));
        assertThat(NodeRenderTest.hostPaths(pod)).endsWith(
                "lvm-config=/etc/lvm:Directory",
                "lvm-locks=/run/lock/lvm:DirectoryOrCreate",
                "lvm-run=/run/lvm:DirectoryOrCreate",
                "udev=/run/udev:DirectoryOrCreate");
        assertThat(pod.getHostIPC()).isTrue();
    }

    @Test
    void zfsOnlyStorageNodesGetNothingOfTheHostsLvm() {
        PodSpec zfsOnly = HelmChart.render(Map.of("agent", Map.of("nodes", Map.of("storage-1", Map.of("backends",
                List.of(Map.of("name", "tank", "type", "zfs", "pool", "tank"))))))).agent().getSpec().getTemplate().getSpec();
        assertThat(mounts(Rendered.container(zfsOnly, "pillar-agent"))).extracting(m -> m.getName())
                .containsExactly("configfs", "dev", "state", "config", "tls");
        assertThat(zfsOnly.getHostIPC()).isNotEqualTo(Boolean.TRUE);
        // the same for a ZFS node beside an LVM one: each storage node's agent gets what its own backends need
        assertThat(mounts(Rendered.container(pod, "pillar-agent"))).extracting(m -> m.getName())
                .containsExactly("configfs", "dev", "state", "config", "tls");
        assertThat(pod.getHostIPC()).isNotEqualTo(Boolean.TRUE);
    }

    @Test
    void initContainerLoadsTheTargetModulesFromTheHostsModulesReadOnly() {
        assertThat(pod.getInitContainers()).singleElement().satisfies(init -> {
            assertThat(init.getImage()).isEqualTo(HelmChart.TEST_REGISTRY + "/pillar-csi/agent:0.1.0");
            assertThat(init.getCommand()).containsExactly("modprobe", "-a", "nvmet", "nvmet_tcp");
            assertThat(init.getSecurityContext().getPrivileged()).isTrue();
            assertThat(mounts(init)).containsExactly(mount("modules", "/lib/modules", true));
        });
    }

    @Test
    void withoutStorageNodesThereIsNoAgent() {
        Rendered none = HelmChart.render(Map.of());
        assertThat(none.agents()).isEmpty();
        assertThat(none.find(ConfigMap.class, "pillar-pillar-csi-agent")).isEmpty();
        assertThat(none.all(DaemonSet.class)).extracting(d -> d.getMetadata().getName())
                .containsExactly("pillar-pillar-csi-node");
    }
}
