package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The csi-snapshotter sidecar and its roles: with {@code snapshots.enabled: auto} (the default) they
 * are rendered exactly when the cluster's discovery serves snapshot.storage.k8s.io/v1 VolumeSnapshot;
 * {@code true} without that API fails the render naming what to install; {@code false} never renders
 * them. The controller may always keep its PillarSnapshotStates and its VolumeSnapshotClasses.
 */
class SnapshotsRenderTest {
    private static final String NAME = "csi-snapshotter";
    private static final String ROLE = "pillar-pillar-csi-external-snapshotter";

    @AfterEach
    void clusterWithoutTheApi() {
        FakeKubeApi.instance().clear();
    }

    private static PodSpec pod(Rendered rendered) {
        return rendered.get(Deployment.class, "pillar-pillar-csi-controller").getSpec().getTemplate().getSpec();
    }

    private static boolean sidecar(Rendered rendered) {
        return pod(rendered).getContainers().stream().anyMatch(c -> c.getName().equals(NAME));
    }

    private static Map<String, ?> enabled(Object value) {
        return Map.of("snapshots", Map.of("enabled", value));
    }

    @Test
    void autoRunsTheSidecarOnlyWhereTheClusterServesTheSnapshotApi() {
        HelmChart.Installed without = HelmChart.install(Map.of());
        assertThat(sidecar(without.rendered())).isFalse();
        assertThat(without.rendered().all(ClusterRole.class)).noneMatch(r -> r.getMetadata().getName().equals(ROLE));
        assertThat(without.notes()).contains("Snapshots are off: the cluster serves no snapshot.storage.k8s.io/v1")
                .contains("kubectl api-resources --api-group=snapshot.storage.k8s.io");
        assertThat(sidecar(HelmChart.render(Map.of()))).as("helm template without --api-versions").isFalse();

        FakeKubeApi.instance().snapshotApi(true);
        HelmChart.Installed installed = HelmChart.install(Map.of());
        Rendered with = installed.rendered();
        Container snapshotter = Rendered.container(pod(with), NAME);
        assertThat(snapshotter.getImage()).isEqualTo("registry.k8s.io/sig-storage/csi-snapshotter:v8.2.0");
        assertThat(snapshotter.getArgs()).containsExactly("--csi-address=/csi/csi.sock", "--leader-election",
                "--leader-election-namespace=$(NAMESPACE)", "--timeout=60s");
        assertThat(snapshotter.getVolumeMounts()).singleElement().satisfies(m -> assertThat(m.getMountPath()).isEqualTo("/csi"));
        assertThat(snapshotter.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(with.get(ClusterRole.class, ROLE).getRules()).containsExactlyInAnyOrder(
                rule("", "events", "list", "watch", "create", "update", "patch"),
                rule("snapshot.storage.k8s.io", "volumesnapshotclasses", "get", "list", "watch"),
                rule("snapshot.storage.k8s.io", "volumesnapshotcontents", "get", "list", "watch", "update", "patch"),
                rule("snapshot.storage.k8s.io", "volumesnapshotcontents/status", "update", "patch"));
        assertThat(with.get(ClusterRoleBinding.class, ROLE).getSubjects()).singleElement()
                .satisfies(s -> assertThat(s.getName()).isEqualTo("pillar-pillar-csi-controller"));
        assertThat(installed.notes()).contains("Snapshots are on")
                .contains("kubectl get volumesnapshotclasses -l app.kubernetes.io/managed-by=pillar-controller");
    }

    @Test
    void trueWithoutTheApiFailsNamingWhatToInstallAndFalseNeverRunsIt() {
        assertThatThrownBy(() -> HelmChart.install(enabled(true)))
                .hasMessageContaining("snapshots.enabled=true but the cluster serves no snapshot.storage.k8s.io/v1")
                .hasMessageContaining("client/config/crd").hasMessageContaining("snapshot-controller");
        FakeKubeApi.instance().snapshotApi(true);
        assertThat(sidecar(HelmChart.install(enabled(true)).rendered())).isTrue();
        HelmChart.Installed off = HelmChart.install(enabled(false));
        assertThat(sidecar(off.rendered())).isFalse();
        assertThat(off.rendered().all(ClusterRole.class)).noneMatch(r -> r.getMetadata().getName().equals(ROLE));
        assertThat(off.notes()).contains("Snapshots are off (snapshots.enabled=false)");
        assertThatThrownBy(() -> HelmChart.render(enabled("sometimes"))).hasMessageContaining("/snapshots/enabled");
    }

    @Test
    void theControllerKeepsSnapshotStatesAndGeneratesSnapshotClassesEitherWay() {
        List<PolicyRule> rules = HelmChart.render(Map.of()).get(ClusterRole.class, "pillar-pillar-csi-controller").getRules();
        assertThat(rules).contains(
                rule("pillar.csi.io", "pillarsnapshotstates", "get", "list", "watch", "create", "update", "patch", "delete"),
                rule("pillar.csi.io", "pillarsnapshotstates/status", "update", "patch"),
                rule("snapshot.storage.k8s.io", "volumesnapshotclasses", "get", "list", "watch", "create", "update", "patch",
                        "delete"));
    }

    private static PolicyRule rule(String group, String resource, String... verbs) {
        return new PolicyRuleBuilder().withApiGroups(group).withResources(resource).withVerbs(verbs).build();
    }
}
