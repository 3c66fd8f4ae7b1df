package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import org.junit.jupiter.api.Test;

/**
 * Least privilege: the exact rules of each role, no wildcard anywhere, every role bound to the
 * controller's ServiceAccount only, and no API access at all for the agent and the node.
 */
class RbacTest {
    private static final String PREFIX = "pillar-pillar-csi-";
    private static final String CONTROLLER_SA = PREFIX + "controller";
    private static final List<String> LEASE_VERBS = List.of("get", "watch", "list", "delete", "update", "create");
    private static final Map<String, Object> AGENT_NODES = Map.of("agent", Map.of("nodes", Map.of("storage-1",
            Map.of("backends", List.of(Map.of("name", "tank", "type", "zfs", "pool", "tank")))))); 

    private final Rendered rendered = HelmChart.render(Map.of("tls", Map.of("mode", "cert-manager")));

    @Test
    void controllerClusterRoleIsExactlyWhatTheReconcilersUse() {
        assertThat(clusterRole("controller")).containsExactly(
                rule("pillar.csi.io", List.of("pillaragents", "pillarstores", "pillarprotocols", "pillarstorageclasses"),
                        "get", "list", "watch"),
                rule("pillar.csi.io", List.of("pillaragents/status", "pillarstores/status", "pillarprotocols/status",
                        "pillarstorageclasses/status"), "update", "patch"),
                rule("pillar.csi.io", List.of("pillarvolumestates"),
                        "get", "list", "watch", "create", "update", "patch", "delete"),
                rule("pillar.csi.io", List.of("pillarvolumestates/status"), "update", "patch"),
                rule("pillar.csi.io", List.of("pillarsnapshotstates"),
                        "get", "list", "watch", "create", "update", "patch", "delete"),
                rule("pillar.csi.io", List.of("pillarsnapshotstates/status"), "update", "patch"),
                rule("snapshot.storage.k8s.io", List.of("volumesnapshotclasses"),
                        "get", "list", "watch", "create", "update", "patch", "delete"),
                rule("storage.k8s.io", List.of("storageclasses"), "get", "list", "watch", "create", "patch", "delete"),
                rule("storage.k8s.io", List.of("csinodes"), "list", "watch"),
                rule("", List.of("nodes"), "get"),
                rule("", List.of("persistentvolumeclaims"), "get"));
        assertThat(role("controller")).containsExactly(
                rule("", List.of("events"), "create"),
                rule("coordination.k8s.io", List.of("leases"), "get", "create", "update"),
                rule("", List.of("secrets"), "get", "create", "update", "delete"));
    }

    @Test
    void provisionerRulesFollowUpstreamWithoutSnapshotsOrSecrets() {
        assertThat(clusterRole("external-provisioner")).containsExactly(
                rule("", List.of("persistentvolumes"), "get", "list", "watch", "create", "patch", "delete"),
                rule("", List.of("persistentvolumeclaims"), "get", "list", "watch", "update"),
                rule("storage.k8s.io", List.of("storageclasses"), "get", "list", "watch"),
                rule("", List.of("events"), "list", "watch", "create", "update", "patch"),
                rule("storage.k8s.io", List.of("csinodes"), "get", "list", "watch"),
                rule("", List.of("nodes"), "get", "list", "watch"),
                rule("storage.k8s.io", List.of("volumeattachments"), "get", "list", "watch"));
        assertThat(role("external-provisioner")).containsExactly(
                rule("coordination.k8s.io", List.of("leases"), LEASE_VERBS.toArray(String[]::new)),
                rule("storage.k8s.io", List.of("csistoragecapacities"),
                        "get", "list", "watch", "create", "update", "patch", "delete"),
                rule("", List.of("pods"), "get"),
                rule("apps", List.of("replicasets"), "get"));
    }

    @Test
    void attacherAndResizerRulesFollowUpstream() {
        assertThat(clusterRole("external-attacher")).containsExactly(
                rule("", List.of("persistentvolumes"), "get", "list", "watch", "patch"),
                rule("storage.k8s.io", List.of("csinodes"), "get", "list", "watch"),
                rule("storage.k8s.io", List.of("volumeattachments"), "get", "list", "watch", "patch"),
                rule("storage.k8s.io", List.of("volumeattachments/status"), "patch"));
        assertThat(clusterRole("external-resizer")).containsExactly(
                rule("", List.of("persistentvolumes"), "get", "list", "watch", "patch"),
                rule("", List.of("persistentvolumeclaims"), "get", "list", "watch"),
                rule("", List.of("pods"), "get", "list", "watch"),
                rule("", List.of("persistentvolumeclaims/status"), "patch"),
                rule("", List.of("events"), "list", "watch", "create", "update", "patch"));
        for (String sidecar : List.of("external-attacher", "external-resizer")) {
            assertThat(role(sidecar))
                    .containsExactly(rule("coordination.k8s.io", List.of("leases"), LEASE_VERBS.toArray(String[]::new)));
        }
    }

    @Test
    void noRuleUsesAWildcardAndOnlyTheControllersRoleNamesSecretsNeverListingThem() {
        Rendered withAgents = HelmChart.render(AGENT_NODES);
        List<PolicyRule> secrets = withAgents.get(Role.class, PREFIX + "controller").getRules().stream()
                .filter(r -> r.getResources().contains("secrets")).toList();
        assertThat(secrets).singleElement().satisfies(rule -> {
            assertThat(rule.getResources()).containsExactly("secrets");
            assertThat(rule.getResourceNames()).isNullOrEmpty();
            assertThat(rule.getVerbs()).containsExactly("get", "create", "update", "delete").doesNotContain("list", "watch");
        });
        List<PolicyRule> rules = Stream.concat(
                withAgents.all(ClusterRole.class).stream().flatMap(r -> r.getRules().stream()),
                withAgents.all(Role.class).stream().flatMap(r -> r.getRules().stream())).toList();
        assertThat(rules).hasSize(40).filteredOn(rule -> !secrets.contains(rule)).hasSize(39).allSatisfy(rule -> {
            assertThat(rule.getVerbs()).doesNotContain("*");
            assertThat(rule.getResources()).doesNotContain("*", "secrets");
            assertThat(rule.getApiGroups()).doesNotContain("*");
            assertThat(rule.getNonResourceURLs()).isNullOrEmpty();
        });
    }

    @Test
    void everyRoleIsBoundToTheControllerServiceAccountInTheReleaseNamespaceOnly() {
        Rendered withAgents = HelmChart.render(AGENT_NODES);
        List<String> components = List.of("controller", "external-provisioner", "external-attacher", "external-resizer",
                "external-health-monitor");
        assertThat(withAgents.all(ClusterRole.class)).extracting(r -> r.getMetadata().getName())
                .containsExactlyInAnyOrderElementsOf(components.stream().map(c -> PREFIX + c).toList());
        assertThat(withAgents.all(ClusterRoleBinding.class)).hasSize(5).allSatisfy(binding -> {
            assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
            assertThat(binding.getRoleRef().getName()).isEqualTo(binding.getMetadata().getName());
            assertControllerOnly(binding.getSubjects());
        });
        assertThat(withAgents.all(RoleBinding.class)).hasSize(5).allSatisfy(binding -> {
            assertThat(binding.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE);
            assertThat(binding.getRoleRef().getKind()).isEqualTo("Role");
            assertThat(binding.getRoleRef().getName()).isEqualTo(binding.getMetadata().getName());
            assertControllerOnly(binding.getSubjects());
        });
        assertThat(withAgents.all(Role.class))
                .allSatisfy(r -> assertThat(r.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE));
    }

    @Test
    void agentAndNodeHaveNoToken() {
        Rendered withAgents = HelmChart.render(AGENT_NODES);
        for (String component : List.of("agent", "node")) {
            ServiceAccount account = withAgents.get(ServiceAccount.class, PREFIX + component);
            assertThat(account.getAutomountServiceAccountToken()).as(component).isFalse();
        }
        assertThat(withAgents.agent().getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(withAgents.agent().getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(PREFIX + "agent");
        assertThat(withAgents.nodePlugin().getSpec().getTemplate().getSpec().getAutomountServiceAccountToken()).isFalse();
        assertThat(withAgents.nodePlugin().getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(PREFIX + "node");
        assertThat(withAgents.controller().getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo(CONTROLLER_SA);
        assertThat(withAgents.get(ServiceAccount.class, CONTROLLER_SA).getAutomountServiceAccountToken()).isNull();
    }

    private static void assertControllerOnly(List<Subject> subjects) {
        assertThat(subjects).singleElement().satisfies(subject -> {
            assertThat(subject.getKind()).isEqualTo("ServiceAccount");
            assertThat(subject.getName()).isEqualTo(CONTROLLER_SA);
            assertThat(subject.getNamespace()).isEqualTo(HelmChart.NAMESPACE);
        });
    }

    private List<Rule> clusterRole(String component) {
        return rules(rendered.get(ClusterRole.class, PREFIX + component).getRules());
    }

    private List<Rule> role(String component) {
        return rules(rendered.get(Role.class, PREFIX + component).getRules());
    }

    static List<Rule> controllerRules(Rendered rendered) {
        return rules(rendered.get(ClusterRole.class, PREFIX + "controller").getRules());
    }

    /** The resources of a group granted all these verbs. */
    static List<String> resourcesWithVerbs(List<Rule> rules, String group, String... verbs) {
        return rules.stream().filter(r -> r.apiGroups().equals(List.of(group)) && r.verbs().containsAll(List.of(verbs)))
                .flatMap(r -> r.resources().stream()).toList();
    }

    private static List<Rule> rules(List<PolicyRule> rules) {
        return rules.stream().map(r -> {
            assertThat(r.getResourceNames()).isNullOrEmpty();
            return new Rule(r.getApiGroups(), r.getResources(), r.getVerbs());
        }).toList();
    }

    private static Rule rule(String group, List<String> resources, String... verbs) {
        return new Rule(List.of(group), resources, List.of(verbs));
    }

    record Rule(List<String> apiGroups, List<String> resources, List<String> verbs) {
    }
}
