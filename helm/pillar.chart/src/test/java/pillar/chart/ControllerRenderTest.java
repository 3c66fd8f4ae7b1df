package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import org.junit.jupiter.api.Test;

/** The default rendering: the controller Deployment with its sidecars, and the CSIDriver object. */
class ControllerRenderTest {
    private final Rendered rendered = HelmChart.render(Map.of());
    private final Deployment deployment = rendered.controller();
    private final PodSpec pod = deployment.getSpec().getTemplate().getSpec();

    @Test
    void oneReplicaRecreatedOfOnePodWithTheControllerAndFourSidecars() {
        assertThat(deployment.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE);
        assertThat(deployment.getSpec().getReplicas()).isEqualTo(1);
        assertThat(deployment.getSpec().getStrategy().getType()).isEqualTo("Recreate");
        assertThat(pod.getContainers()).extracting(Container::getName)
                .containsExactly("pillar-controller", "csi-provisioner", "csi-attacher", "csi-resizer",
                        "csi-external-health-monitor-controller");
        assertThat(pod.getInitContainers()).isEmpty();
        assertThat(pod.getHostNetwork()).isNull();
        assertThat(pod.getPriorityClassName()).isEqualTo("system-cluster-critical");
        assertThat(pod.getAffinity().getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution())
                .singleElement().satisfies(term -> assertThat(term.getPodAffinityTerm().getTopologyKey())
                        .isEqualTo("kubernetes.io/hostname"));
    }

    @Test
    void everyContainerRunsAsNonRootWithoutPrivilegesOnAReadOnlyRoot() {
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
        assertThat(pod.getSecurityContext().getRunAsGroup()).isEqualTo(65532L);
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(pod.getContainers()).allSatisfy(c -> {
            assertThat(c.getSecurityContext().getPrivileged()).as(c.getName()).isNull();
            assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).as(c.getName()).isFalse();
            assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).as(c.getName()).isTrue();
            assertThat(c.getSecurityContext().getCapabilities().getDrop()).as(c.getName()).containsExactly("ALL");
            assertThat(c.getSecurityContext().getCapabilities().getAdd()).as(c.getName()).isNullOrEmpty();
            assertThat(c.getResources().getRequests()).as(c.getName()).containsKeys("cpu", "memory");
            assertThat(c.getResources().getLimits()).as(c.getName()).containsKey("memory");
        });
    }

    @Test
    void controllerReadsItsConfigFileAndIsProbedOnHelidonHealth() {
        Container controller = Rendered.container(pod, "pillar-controller");
        assertThat(controller.getImage()).isEqualTo(HelmChart.TEST_REGISTRY + "/pillar-csi/controller:0.1.0");
        assertThat(controller.getArgs()).containsExactly("--config", "/etc/pillar-csi/config/controller.yaml");
        assertThat(controller.getCommand()).isNullOrEmpty();
        assertThat(controller.getPorts()).singleElement().satisfies(p -> assertThat(p.getContainerPort()).isEqualTo(9808));
        assertHealthProbes(controller, 9808);
        assertThat(mounts(controller)).containsExactly(
                mount("socket-dir", "/csi", null), mount("config", "/etc/pillar-csi/config", true), mount("tmp", "/tmp", null),
                mount("tls", "/etc/pillar-csi/tls", true));
        assertThat(pod.getVolumes()).extracting(v -> v.getName()).containsExactly("socket-dir", "tmp", "config", "tls");
        assertThat(pod.getVolumes().get(3).getSecret().getSecretName()).isEqualTo("pillar-pillar-csi-controller-tls");
        assertThat(pod.getVolumes().get(0).getEmptyDir()).isNotNull();
        assertThat(pod.getVolumes().get(1).getEmptyDir()).isNotNull();
        assertThat(pod.getVolumes().get(2).getConfigMap().getName()).isEqualTo("pillar-pillar-csi-controller");
    }

    @Test
    void provisionerTracksCapacityWithExtraMetadataUnderLeaderElection() {
        Container provisioner = Rendered.container(pod, "csi-provisioner");
        assertThat(provisioner.getImage()).isEqualTo("registry.k8s.io/sig-storage/csi-provisioner:v5.2.0");
        assertThat(provisioner.getArgs()).containsExactly("--csi-address=/csi/csi.sock", "--leader-election",
                "--leader-election-namespace=$(NAMESPACE)", "--timeout=60s", "--extra-create-metadata", "--enable-capacity",
                "--capacity-ownerref-level=2");
        assertThat(provisioner.getEnv()).extracting(EnvVar::getName, e -> e.getValueFrom().getFieldRef().getFieldPath())
                .containsExactly(org.assertj.core.groups.Tuple.tuple("NAMESPACE", "metadata.namespace"),
                        org.assertj.core.groups.Tuple.tuple("POD_NAME", "metadata.name"));
        assertThat(mounts(provisioner)).containsExactly(mount("socket-dir", "/csi", null));
    }

    @Test
    void attacherAndResizerElectALeaderOnTheSharedSocket() {
        for (String name : List.of("csi-attacher", "csi-resizer")) {
            Container sidecar = Rendered.container(pod, name);
            assertThat(sidecar.getArgs()).as(name).containsExactly("--csi-address=/csi/csi.sock", "--leader-election",
                    "--leader-election-namespace=$(NAMESPACE)", "--timeout=60s");
            assertThat(sidecar.getEnv()).as(name).singleElement()
                    .satisfies(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.namespace"));
            assertThat(mounts(sidecar)).as(name).containsExactly(mount("socket-dir", "/csi", null));
        }
        assertThat(Rendered.container(pod, "csi-attacher").getImage())
                .isEqualTo("registry.k8s.io/sig-storage/csi-attacher:v4.8.0");
        assertThat(Rendered.container(pod, "csi-resizer").getImage())
                .isEqualTo("registry.k8s.io/sig-storage/csi-resizer:v1.13.0");
    }

    @Test
    void sidecarExtraArgsAreAppended() {
        Rendered custom = HelmChart.render(Map.of("controller", Map.of(
                "provisioner", Map.of("extraArgs", List.of("--v=5")), "resizer", Map.of("extraArgs", List.of("--v=4")))));
        PodSpec customPod = custom.controller().getSpec().getTemplate().getSpec();
        assertThat(custom.controller().getSpec().getReplicas()).isEqualTo(1);
        assertThat(custom.controller().getSpec().getStrategy().getType()).isEqualTo("Recreate");
        assertThat(Rendered.container(customPod, "csi-provisioner").getArgs()).endsWith("--capacity-ownerref-level=2", "--v=5");
        assertThat(Rendered.container(customPod, "csi-resizer").getArgs()).endsWith("--timeout=60s", "--v=4");
        assertThat(Rendered.container(customPod, "csi-attacher").getArgs()).endsWith("--timeout=60s");
    }

    @Test
    void csiDriverNeedsAttachTracksCapacityIsPersistentOnlyAndChownsNoSharedTree() {
        CSIDriver driver = rendered.get(CSIDriver.class, "pillar.csi.io");
        assertThat(driver.getSpec().getAttachRequired()).isTrue();
        assertThat(driver.getSpec().getPodInfoOnMount()).isFalse();
        assertThat(driver.getSpec().getFsGroupPolicy()).as("fsGroup for ReadWriteOnce filesystems only, never a ReadWriteMany tree")
                .isEqualTo("ReadWriteOnceWithFSType");
        assertThat(driver.getSpec().getVolumeLifecycleModes()).containsExactly("Persistent");
        assertThat(driver.getSpec().getStorageCapacity()).isTrue();
        assertThat(driver.getSpec().getRequiresRepublish()).isFalse();
        assertThat(driver.getMetadata().getNamespace()).isNull();
    }

    static void assertHealthProbes(Container container, int port) {
        assertProbe(container.getStartupProbe(), "/observe/health/live", port);
        assertProbe(container.getLivenessProbe(), "/observe/health/live", port);
        assertProbe(container.getReadinessProbe(), "/observe/health/ready", port);
        assertThat(container.getStartupProbe().getFailureThreshold() * container.getStartupProbe().getPeriodSeconds())
                .as("seconds a JVM gets to start").isGreaterThanOrEqualTo(60);
    }

    private static void assertProbe(Probe probe, String path, int port) {
        assertThat(probe.getHttpGet().getPath()).isEqualTo(path);
        assertThat(probe.getHttpGet().getPort().getIntVal()).isEqualTo(port);
        assertThat(probe.getExec()).isNull();
    }

    static List<VolumeMount> mounts(Container container) {
        return container.getVolumeMounts().stream()
                .map(m -> mount(m.getName(), m.getMountPath(), m.getReadOnly(), m.getMountPropagation())).toList();
    }

    static VolumeMount mount(String name, String path, Boolean readOnly) {
        return mount(name, path, readOnly, null);
    }

    static VolumeMount mount(String name, String path, Boolean readOnly, String propagation) {
        VolumeMount mount = new VolumeMount();
        mount.setName(name);
        mount.setMountPath(path);
        mount.setReadOnly(readOnly);
        mount.setMountPropagation(propagation);
        return mount;
    }
}
