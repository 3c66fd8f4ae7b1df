package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import org.junit.jupiter.api.Test;

/**
 * The external-health-monitor-controller sidecar, which turns ControllerGetVolume's abnormal
 * VolumeConditions into PVC events: in the controller pod by default, on the controller's socket under
 * leader election, with the upstream rules (PVs, PVCs, events, its Lease; no nodes or pods: its node
 * watcher is off), and gone with its roles when {@code controller.healthMonitor.enabled} is false.
 */
class HealthMonitorRenderTest {
    private static final String NAME = "csi-external-health-monitor-controller";
    private static final String ROLE = "pillar-pillar-csi-external-health-monitor";

    @Test
    void runsByDefaultBesideTheControllerOnItsSocketUnderLeaderElection() {
        Rendered rendered = HelmChart.render(Map.of());
        Container monitor = Rendered.container(pod(rendered), NAME);

        assertThat(monitor.getImage()).isEqualTo("registry.k8s.io/sig-storage/csi-external-health-monitor-controller:v0.14.0");
        assertThat(monitor.getArgs()).containsExactly("--csi-address=/csi/csi.sock", "--leader-election",
                "--leader-election-namespace=$(NAMESPACE)", "--monitor-interval=1m", "--timeout=15s");
        assertThat(monitor.getArgs()).noneMatch(a -> a.startsWith("--enable-node-watcher"));
        assertThat(monitor.getEnv()).singleElement().satisfies(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath())
                .isEqualTo("metadata.namespace"));
        assertThat(monitor.getVolumeMounts()).singleElement().satisfies(m -> {
            assertThat(m.getName()).isEqualTo("socket-dir");
            assertThat(m.getMountPath()).isEqualTo("/csi");
        });
        assertThat(monitor.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    }

    @Test
    void itsIntervalTimeoutAndFlagsAreValues() {
        Container monitor = Rendered.container(pod(HelmChart.render(Map.of("controller", Map.of("healthMonitor",
                Map.of("monitorInterval", "5m", "timeout", "30s", "extraArgs", List.of("--v=5")))))), NAME);

        assertThat(monitor.getArgs()).contains("--monitor-interval=5m", "--timeout=30s", "--v=5");
    }

    @Test
    void itsRulesAreExactlyPvsPvcsEventsAndItsLeaseBoundToTheControllersAccount() {
        Rendered rendered = HelmChart.render(Map.of());

        assertThat(rules(rendered.get(ClusterRole.class, ROLE).getRules())).containsExactly(
                "/persistentvolumes: get,list,watch",
                "/persistentvolumeclaims: get,list,watch",
                "/events: get,list,watch,create,patch");
        assertThat(rules(rendered.get(Role.class, ROLE).getRules()))
                .containsExactly("coordination.k8s.io/leases: get,watch,list,delete,update,create");
        assertThat(rendered.get(ClusterRoleBinding.class, ROLE).getSubjects()).singleElement()
                .satisfies(s -> assertThat(s.getName()).isEqualTo("pillar-pillar-csi-controller"));
        assertThat(rendered.get(RoleBinding.class, ROLE).getRoleRef().getName()).isEqualTo(ROLE);
    }

    @Test
    void disabledLeavesNeitherTheSidecarNorItsRoles() {
        Rendered rendered = HelmChart.render(Map.of("controller", Map.of("healthMonitor", Map.of("enabled", false))));

        assertThat(pod(rendered).getContainers()).extracting(Container::getName).doesNotContain(NAME)
                .contains("csi-provisioner", "csi-attacher", "csi-resizer");
        assertThat(rendered.find(ClusterRole.class, ROLE)).isEmpty();
        assertThat(rendered.find(Role.class, ROLE)).isEmpty();
        assertThat(rendered.find(ClusterRoleBinding.class, ROLE)).isEmpty();
        assertThat(rendered.find(RoleBinding.class, ROLE)).isEmpty();
        assertThat(rendered.all(ClusterRoleBinding.class)).hasSize(4);
    }

    private static PodSpec pod(Rendered rendered) {
        return rendered.controller().getSpec().getTemplate().getSpec();
    }

    private static List<String> rules(List<PolicyRule> rules) {
        return rules.stream().map(r -> String.join(",", r.getApiGroups()) + "/" + String.join(",", r.getResources()) + ": "
                + String.join(",", r.getVerbs())).toList();
    }
}
