package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static pillar.chart.ControllerRenderTest.mount;
import static pillar.chart.ControllerRenderTest.mounts;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import org.junit.jupiter.api.Test;

/** The node DaemonSet: host network, privileged, the kubelet directory with bidirectional propagation. */
class NodeRenderTest {
    private final DaemonSet daemonSet = HelmChart.render(Map.of()).nodePlugin();
    private final PodSpec pod = daemonSet.getSpec().getTemplate().getSpec();

    @Test
    void runsOnEveryNodeOnTheHostNetwork() {
        assertThat(pod.getHostNetwork()).isTrue();
        assertThat(pod.getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
        assertThat(pod.getTolerations()).singleElement().satisfies(t -> {
            assertThat(t.getOperator()).isEqualTo("Exists");
            assertThat(t.getKey()).isNull();
        });
        assertThat(pod.getNodeSelector()).isNullOrEmpty();
        assertThat(pod.getAffinity()).isNull();
        assertThat(pod.getPriorityClassName()).isEqualTo("system-node-critical");
        assertThat(daemonSet.getSpec().getUpdateStrategy().getType()).isEqualTo("RollingUpdate");
        assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("pillar-node", "node-driver-registrar");
    }

    @Test
    void initContainerLoadsTheInitiatorModules() {
        assertThat(pod.getInitContainers()).singleElement().satisfies(init -> {
            assertThat(init.getImage()).isEqualTo(HelmChart.TEST_REGISTRY + "/pillar-csi/node:0.1.0");
            // modprobe without -a would read the second name as a parameter of the first module
            assertThat(init.getCommand()).containsExactly("modprobe", "-a", "nvme_tcp", "nvme_fabrics");
            assertThat(init.getSecurityContext().getPrivileged()).isTrue();
            assertThat(mounts(init)).containsExactly(mount("modules", "/lib/modules", true));
        });
    }

    @Test
    void nodePluginIsPrivilegedAndMountsTheKubeletDirectoryBidirectionally() {
        Container node = Rendered.container(pod, "pillar-node");
        assertThat(node.getImage()).isEqualTo(HelmChart.TEST_REGISTRY + "/pillar-csi/node:0.1.0");
        assertThat(node.getSecurityContext().getPrivileged()).isTrue();
        assertThat(node.getArgs()).containsExactly("--config", "/etc/pillar-csi/config/node.yaml", "--node.id=$(NODE_NAME)");
        assertThat(node.getEnv()).hasSize(2).satisfiesExactly(e -> {
            assertThat(e.getName()).isEqualTo("NODE_NAME");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
        }, e -> {
            assertThat(e.getName()).isEqualTo("PILLAR_NODE_IP");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.hostIP");
        });
        ControllerRenderTest.assertHealthProbes(node, 9809);
        assertThat(mounts(node)).containsExactly(
                mount("plugin-dir", "/csi", null),
                mount("kubelet-dir", "/var/lib/kubelet", null, "Bidirectional"),
                mount("dev", "/dev", null),
                mount("sys", "/sys", null),
                mount("etc-nvme", "/etc/nvme", null),
                mount("state", "/var/lib/pillar-csi/node", null),
                mount("config", "/etc/pillar-csi/config", true));
    }

    @Test
    void hostPathsAreTheKubeletsAndTheHostsOwn() {
        assertThat(hostPaths(pod)).containsExactly(
                "plugin-dir=/var/lib/kubelet/plugins/pillar.csi.io:DirectoryOrCreate",
                "registration-dir=/var/lib/kubelet/plugins_registry:Directory",
                "kubelet-dir=/var/lib/kubelet:Directory",
                "dev=/dev:Directory",
                "sys=/sys:Directory",
                "etc-nvme=/etc/nvme:DirectoryOrCreate",
                "state=/var/lib/pillar-csi/node:DirectoryOrCreate",
                "modules=/lib/modules:Directory");
        assertThat(pod.getVolumes()).filteredOn(v -> v.getConfigMap() != null).singleElement()
                .satisfies(v -> assertThat(v.getConfigMap().getName()).isEqualTo("pillar-pillar-csi-node"));
    }

    @Test
    void registrarRegistersTheKubeletSocketAndIsProbedOnItsHealthz() {
        Container registrar = Rendered.container(pod, "node-driver-registrar");
        assertThat(registrar.getImage()).isEqualTo("registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.13.0");
        assertThat(registrar.getArgs()).containsExactly("--csi-address=/csi/csi.sock",
                "--kubelet-registration-path=/var/lib/kubelet/plugins/pillar.csi.io/csi.sock", "--http-endpoint=:9811");
        assertThat(registrar.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9811));
        assertThat(registrar.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
        assertThat(registrar.getLivenessProbe().getHttpGet().getPort().getIntVal()).isEqualTo(9811);
        assertThat(registrar.getSecurityContext().getPrivileged()).isNull();
        assertThat(registrar.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
        assertThat(mounts(registrar))
                .containsExactly(mount("plugin-dir", "/csi", null), mount("registration-dir", "/registration", null));
    }

    @Test
    void anotherKubeletDirectoryMovesEveryPathWithIt() {
        String kubelet = "/var/snap/microk8s/common/var/lib/kubelet";
        PodSpec moved = HelmChart.render(Map.of("kubeletDir", kubelet)).nodePlugin().getSpec().getTemplate().getSpec();
        assertThat(hostPaths(moved)).contains("plugin-dir=" + kubelet + "/plugins/pillar.csi.io:DirectoryOrCreate",
                "registration-dir=" + kubelet + "/plugins_registry:Directory", "kubelet-dir=" + kubelet + ":Directory");
        assertThat(mounts(Rendered.container(moved, "pillar-node")))
                .contains(mount("kubelet-dir", kubelet, null, "Bidirectional"));
        assertThat(Rendered.container(moved, "node-driver-registrar").getArgs())
                .contains("--kubelet-registration-path=" + kubelet + "/plugins/pillar.csi.io/csi.sock");
        assertThat(HelmChart.render(Map.of("kubeletDir", kubelet)).configFile("pillar-pillar-csi-node", "node.yaml"))
                .extractingByKey("node").asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsEntry("kubelet-dir", kubelet);
    }

    static List<String> hostPaths(PodSpec pod) {
        return pod.getVolumes().stream().filter(v -> v.getHostPath() != null)
                .map((Volume v) -> v.getName() + "=" + v.getHostPath().getPath() + ":" + v.getHostPath().getType()).toList();
    }
}
