package pillar.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad values are refused before anything is rendered, each with Helm's message naming the value:
 * values.schema.json (types, unknown keys, enums, required keys, patterns, ranges) and the
 * template's own checks for what a schema cannot say.
 */
class SchemaTest {
    private static final String SCHEMA = "values don't meet the specifications of the schema";
    private static final String BACKEND = "/agent/nodes/storage-1/backends/0";

    static Stream<Arguments> refused() {
        return Stream.of(
                // wrong types
                schema("replicas as a string", Map.of("controller", Map.of("replicas", "two")),
                        "/controller/replicas", "got string, want integer"),
                schema("port as a string", Map.of("agent", Map.of("port", "9500")), "/agent/port", "got string, want integer"),
                schema("tolerations as a map", Map.of("node", Map.of("tolerations", Map.of("operator", "Exists"))),
                        "/node/tolerations", "got object, want array"),
                schema("backends as a map", node(Map.of("backends", Map.of("name", "tank"))),
                        "/agent/nodes/storage-1/backends", "got object, want array"),
                // unknown keys
                schema("unknown top-level key", Map.of("controler", Map.of("replicas", 1)),
                        "", "additional properties 'controler' not allowed"),
                schema("misspelt nested key", Map.of("controller", Map.of("replica", 1)),
                        "/controller", "additional properties 'replica' not allowed"),
                schema("unknown backend key",
                        backend(Map.of("name", "tank", "type", "zfs", "pool", "tank", "compression", "lz4")),
                        BACKEND, "additional properties 'compression' not allowed"),
                schema("unknown image key", Map.of("images", Map.of("agent", Map.of("version", "1"))),
                        "/images/agent", "additional properties 'version' not allowed"),
                // bad enum values
                schema("tls mode", Map.of("tls", Map.of("mode", "mtls")),
                        "/tls/mode", "value must be one of 'generated', 'cert-manager', 'secrets', 'none'"),
                schema("acknowledgement as a string", Map.of("tls", Map.of("acknowledgePlaintext", "yes")),
                        "/tls/acknowledgePlaintext", "got string, want boolean"),
                schema("pull policy", Map.of("images", Map.of("node", Map.of("pullPolicy", "Sometimes"))),
                        "/images/node/pullPolicy", "value must be one of 'Always', 'IfNotPresent', 'Never'"),
                schema("backend type", backend(Map.of("name", "b", "type", "btrfs", "pool", "p")),
                        BACKEND + "/type", "value must be one of 'zfs', 'zfs-dataset', 'lvm', 'lvm-thin'"),
                schema("issuer kind", Map.of("tls", Map.of("certManager", Map.of("issuerRef", Map.of("kind", "Vault")))),
                        "/tls/certManager/issuerRef/kind", "value must be one of 'Issuer', 'ClusterIssuer'"),
                // missing required values
                schema("image without repository", withNull("images", "controller", "repository"),
                        "/images/controller", "missing property 'repository'"),
                schema("secrets mode without Secret names", Map.of("tls", Map.of("mode", "secrets")),
                        "/tls/secrets/controller", "minLength: got 0, want 1"),
                schema("secrets mode without the agent Secret",
                        Map.of("tls", Map.of("mode", "secrets", "secrets", Map.of("controller", "c"))),
                        "/tls/secrets/agent", "minLength: got 0, want 1"),
                schema("storage node without backends", node(Map.of()), "/agent/nodes/storage-1", "missing property 'backends'"),
                schema("storage node with no backend", node(Map.of("backends", List.of())),
                        "/agent/nodes/storage-1/backends", "minItems: got 0, want 1"),
                schema("zfs backend without pool", backend(Map.of("name", "tank", "type", "zfs")),
                        BACKEND, "missing property 'pool'"),
                schema("lvm-thin backend without thin pool",
                        backend(Map.of("name", "fast", "type", "lvm-thin", "volumeGroup", "vg0")),
                        BACKEND, "missing property 'thinPool'"),
                schema("backend without type", backend(Map.of("name", "tank", "pool", "tank")),
                        BACKEND, "missing property 'type'"),
                // keys that belong to another backend type
                schema("lvm backend with a thin pool",
                        backend(Map.of("name", "b", "type", "lvm", "volumeGroup", "vg0", "thinPool", "p")),
                        BACKEND + "/thinPool", "false schema"),
                schema("lvm backend with an over-provisioning ratio",
                        backend(Map.of("name", "b", "type", "lvm", "volumeGroup", "vg0", "overProvisioningRatio", 2)),
                        BACKEND + "/overProvisioningRatio", "false schema"),
                // the thin pool's over-provisioning ratio: a number from 1 (none) to 1000
                schema("over-provisioning ratio below 1",
                        backend(Map.of("name", "f", "type", "lvm-thin", "volumeGroup", "vg0", "thinPool", "p", "overProvisioningRatio", 0.5)),
                        BACKEND + "/overProvisioningRatio", "minimum: got 0.5, want 1"),
                schema("over-provisioning ratio as a string",
                        backend(Map.of("name", "f", "type", "lvm-thin", "volumeGroup", "vg0", "thinPool", "p", "overProvisioningRatio", "2x")),
                        BACKEND + "/overProvisioningRatio", "got string, want number"),
                // patterns
                schema("backend name not a label", backend(Map.of("name", "Tank_1", "type", "zfs", "pool", "tank")),
                        BACKEND + "/name", "'Tank_1' does not match pattern"),
                schema("pool starting with a dash", backend(Map.of("name", "t", "type", "zfs", "pool", "-o")),
                        BACKEND + "/pool", "'-o' does not match pattern"),
                schema("node name not a DNS name", Map.of("agent", Map.of("nodes", Map.of("Storage_1", Map.of("backends",
                        List.of(Map.of("name", "t", "type", "zfs", "pool", "t")))))), "", "invalid propertyName 'Storage_1'"),
                schema("relative kubelet directory", Map.of("kubeletDir", "var/lib/kubelet"),
                        "/kubeletDir", "'var/lib/kubelet' does not match pattern"),
                schema("kubelet directory with a trailing slash", Map.of("kubeletDir", "/var/lib/kubelet/"),
                        "/kubeletDir", "'/var/lib/kubelet/' does not match pattern"),
                schema("duration in words", Map.of("controller", Map.of("config", Map.of("pollInterval", "30 seconds"))),
                        "/controller/config/pollInterval", "'30 seconds' does not match pattern"),
                schema("digest not sha256", Map.of("images", Map.of("agent", Map.of("digest", "md5:abc"))),
                        "/images/agent/digest", "'md5:abc' does not match pattern"),
                schema("registry with a scheme", Map.of("global", Map.of("imageRegistry", "https://mirror.lan")),
                        "/global/imageRegistry", "'https://mirror.lan' does not match pattern"),
                schema("sidecar flag without dashes",
                        Map.of("controller", Map.of("provisioner", Map.of("extraArgs", List.of("v=5")))),
                        "/controller/provisioner/extraArgs/0", "'v=5' does not match pattern"),
                schema("controller name not a DNS name", Map.of("tls", Map.of("controllerName", "Pillar Controller")),
                        "/tls/controllerName", "'Pillar Controller' does not match pattern"),
                schema("agent IP not an address", Map.of("tls", Map.of("agentIpAddresses", List.of("storage-1"))),
                        "/tls/agentIpAddresses/0", "'storage-1' does not match pattern"),
                schema("agent IPs moved out of certManager",
                        Map.of("tls", Map.of("certManager", Map.of("agentIpAddresses", List.of("10.0.0.1")))),
                        "/tls/certManager", "additional properties 'agentIpAddresses' not allowed"),
                schema("listen host with a space", Map.of("agent", Map.of("listenHost", "10.0.0.1 ")),
                        "/agent/listenHost", "'10.0.0.1 ' does not match pattern"),
                schema("scrape interval in words", Map.of("metrics", Map.of("serviceMonitor", Map.of("interval", "half a minute"))),
                        "/metrics/serviceMonitor/interval", "'half a minute' does not match pattern"),
                schema("dashboard label with a space", Map.of("metrics", Map.of("dashboard", Map.of("label", "grafana dashboard"))),
                        "/metrics/dashboard/label", "'grafana dashboard' does not match pattern"),
                schema("metrics switch as a string", Map.of("metrics", Map.of("enabled", "yes")),
                        "/metrics/enabled", "got string, want boolean"),
                // ranges
                schema("certificates valid for no day", Map.of("tls", Map.of("generated", Map.of("validityDays", 0))),
                        "/tls/generated/validityDays", "minimum: got 0, want 1"),
                schema("port above 65535", Map.of("node", Map.of("healthPort", 70000)),
                        "/node/healthPort", "maximum: got 70,000, want 65,535"),
                schema("no replica", Map.of("controller", Map.of("replicas", 0)),
                        "/controller/replicas", "minimum: got 0, want 1"),
                schema("two replicas", Map.of("controller", Map.of("replicas", 2)),
                        "/controller/replicas", "maximum: got 2, want 1"),
                schema("controller as root", Map.of("controller", Map.of("runAsUser", 0)),
                        "/controller/runAsUser", "minimum: got 0, want 1"),
                schema("attach timeout over an hour", Map.of("node", Map.of("attachTimeoutSeconds", 3601)),
                        "/node/attachTimeoutSeconds", "maximum: got 3,601, want 3,600"),
                // the NFS server's values
                schema("nfs switch as a string", Map.of("agent", Map.of("nfs", Map.of("enabled", "yes"))),
                        "/agent/nfs/enabled", "got string, want boolean"),
                schema("misspelt nfs key", Map.of("agent", Map.of("nfs", Map.of("exportRoot", List.of("/tank")))),
                        "/agent/nfs", "additional properties 'exportRoot' not allowed"),
                schema("grace below ten seconds", Map.of("agent", Map.of("nfs", Map.of("graceSeconds", 5))),
                        "/agent/nfs/graceSeconds", "minimum: got 5, want 10"),
                schema("no nfsd thread", Map.of("agent", Map.of("nfs", Map.of("threads", 0))),
                        "/agent/nfs/threads", "minimum: got 0, want 1"),
                schema("relative export root", Map.of("agent", Map.of("nfs", Map.of("exportRoots", List.of("tank")))),
                        "/agent/nfs/exportRoots/0", "'tank' does not match pattern"),
                schema("the host's root as export root", Map.of("agent", Map.of("nfs", Map.of("exportRoots", List.of("/")))),
                        "/agent/nfs/exportRoots/0", "'/' does not match pattern"),
                schema("export root with a trailing slash", Map.of("agent", Map.of("nfs", Map.of("exportRoots", List.of("/tank/")))),
                        "/agent/nfs/exportRoots/0", "'/tank/' does not match pattern"),
                schema("unknown mountd key", Map.of("agent", Map.of("nfs", Map.of("mountd", Map.of("image", "x")))),
                        "/agent/nfs/mountd", "additional properties 'image' not allowed"),
                // checks of the templates, for what a schema cannot say
                Arguments.of("two backends of one name", backends(List.of(Map.of("name", "tank", "type", "zfs", "pool", "tank"),
                        Map.of("name", "tank", "type", "lvm", "volumeGroup", "vg0"))),
                        List.of("agent.nodes.storage-1.backends: the name \"tank\" is used twice")),
                Arguments.of("plaintext without the acknowledgement", Map.of("tls", Map.of("mode", "none")),
                        List.of("tls.mode=none serves the agent API in plaintext", "Set tls.acknowledgePlaintext=true")),
                Arguments.of("nfs without export roots", Map.of("agent", Map.of("nfs", Map.of("enabled", true))),
                        List.of("agent.nfs.enabled=true needs agent.nfs.exportRoots")),
                Arguments.of("agent and node health on one port", Map.of("agent", Map.of("healthPort", 9809)),
                        List.of("agent.healthPort and node.healthPort are both 9809")),
                Arguments.of("agent API on the registrar's health port", Map.of("agent", Map.of("port", 9811)),
                        List.of("agent.port and node.registrar.healthPort are both 9811")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusedWithAMessageNamingTheValue(String rule, Map<String, Object> values, List<String> expected) {
        assertThatThrownBy(() -> HelmChart.template(values, "1.25.0"))
                .as(rule)
                .isInstanceOf(IllegalStateException.class)
                .satisfies(e -> {
                    for (String fragment : expected) {
                        assertThat(e.getMessage()).contains(fragment);
                    }
                });
    }

    /** A value the schema refuses: Helm's message names where ("at '/path'") and why. */
    private static Arguments schema(String rule, Map<String, Object> values, String path, String why) {
        return Arguments.of(rule, values, List.of(SCHEMA, "- at '" + path + "': " + why));
    }

    private static Map<String, Object> node(Map<String, Object> node) {
        return Map.of("agent", Map.of("nodes", Map.of("storage-1", node)));
    }

    private static Map<String, Object> backend(Map<String, Object> backend) {
        return backends(List.of(backend));
    }

    private static Map<String, Object> backends(List<Map<String, Object>> backends) {
        return node(Map.of("backends", backends));
    }

    private static Map<String, Object> withNull(String... path) {
        Map<String, Object> leaf = new HashMap<>();
        leaf.put(path[path.length - 1], null);
        Map<String, Object> current = leaf;
        for (int i = path.length - 2; i >= 0; i--) {
            Map<String, Object> parent = new LinkedHashMap<>();
            parent.put(path[i], current);
            current = parent;
        }
        return current;
    }
}
