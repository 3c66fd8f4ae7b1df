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

    static Stream<Arguments> refused() {
        return Stream.of(
                // wrong types
                refused("replicas as a string", Map.of("controller", Map.of("replicas", "two")), SCHEMA, "at '/controller/replicas': got string, want integer"),
                refused("port as a string", Map.of("agent", Map.of("port", "9500")), SCHEMA, "at '/agent/port': got string, want integer"),
                refused("tolerations as a map", Map.of("node", Map.of("tolerations", Map.of("operator", "Exists"))), SCHEMA,
                        "at '/node/tolerations': got object, want array"),
                refused("backends as a map", node(Map.of("backends", Map.of("name", "tank"))), SCHEMA,
                        "at '/agent/nodes/storage-1/backends': got object, want array"),
                // unknown keys
                refused("unknown top-level key", Map.of("controler", Map.of("replicas", 1)), SCHEMA, "at '': additional properties 'controler' not allowed"),
                refused("misspelt nested key", Map.of("controller", Map.of("replica", 1)), SCHEMA, "at '/controller': additional properties 'replica' not allowed"),
                refused("unknown backend key", backend(Map.of("name", "tank", "type", "zfs", "pool", "tank", "compression", "lz4")),
                        SCHEMA, "at '/agent/nodes/storage-1/backends/0': additional properties 'compression' not allowed"),
                refused("unknown image key", Map.of("images", Map.of("agent", Map.of("version", "1"))), SCHEMA, "at '/images/agent': additional properties 'version' not allowed"),
                // bad enum values
                refused("tls mode", Map.of("tls", Map.of("mode", "mtls")), SCHEMA, "at '/tls/mode': value must be one of 'none', 'cert-manager', 'secrets'"),
                refused("pull policy", Map.of("images", Map.of("node", Map.of("pullPolicy", "Sometimes"))), SCHEMA,
                        "at '/images/node/pullPolicy': value must be one of"),
                refused("backend type", backend(Map.of("name", "b", "type", "btrfs", "pool", "p")), SCHEMA, "at '/agent/nodes/storage-1/backends/0/type': value must be one of 'zfs', 'lvm', 'lvm-thin'"),
                refused("issuer kind", Map.of("tls", Map.of("certManager", Map.of("issuerRef", Map.of("kind", "Vault")))), SCHEMA,
                        "at '/tls/certManager/issuerRef/kind': value must be one of"),
                // missing required values
                refused("image without repository", withNull("images", "controller", "repository"), SCHEMA, "at '/images/controller': missing property 'repository'"),
                refused("secrets mode without Secret names", Map.of("tls", Map.of("mode", "secrets")), SCHEMA, "at '/tls/secrets/controller': minLength: got 0, want 1",
                        "at '/tls/secrets/agent': minLength: got 0, want 1"),
                refused("storage node without backends", node(Map.of()), SCHEMA, "at '/agent/nodes/storage-1': missing property 'backends'"),
                refused("storage node with no backend", node(Map.of("backends", List.of())), SCHEMA,
                        "at '/agent/nodes/storage-1/backends': minItems: got 0, want 1"),
                refused("zfs backend without pool", backend(Map.of("name", "tank", "type", "zfs")), SCHEMA, "at '/agent/nodes/storage-1/backends/0': missing property 'pool'"),
                refused("lvm-thin backend without thin pool", backend(Map.of("name", "fast", "type", "lvm-thin", "volumeGroup", "vg0")),
                        SCHEMA, "at '/agent/nodes/storage-1/backends/0': missing property 'thinPool'"),
                refused("backend without type", backend(Map.of("name", "tank", "pool", "tank")), SCHEMA, "at '/agent/nodes/storage-1/backends/0': missing property 'type'"),
                // keys that belong to another backend type
                refused("lvm backend with a thin pool", backend(Map.of("name", "b", "type", "lvm", "volumeGroup", "vg0", "thinPool", "p")),
                        SCHEMA, "at '/agent/nodes/storage-1/backends/0/thinPool': false schema"),
                // patterns
                refused("backend name not a label", backend(Map.of("name", "Tank_1", "type", "zfs", "pool", "tank")), SCHEMA, "at '/agent/nodes/storage-1/backends/0/name': 'Tank_1' does not match pattern"),
                refused("pool starting with a dash", backend(Map.of("name", "t", "type", "zfs", "pool", "-o")), SCHEMA, "at '/agent/nodes/storage-1/backends/0/pool': '-o' does not match pattern"),
                refused("node name not a DNS name", Map.of("agent", Map.of("nodes", Map.of("Storage_1",
                        Map.of("backends", List.of(Map.of("name", "t", "type", "zfs", "pool", "t")))))), SCHEMA, "invalid propertyName 'Storage_1'"),
                refused("relative kubelet directory", Map.of("kubeletDir", "var/lib/kubelet"), SCHEMA, "at '/kubeletDir': 'var/lib/kubelet' does not match pattern"),
                refused("kubelet directory with a trailing slash", Map.of("kubeletDir", "/var/lib/kubelet/"), SCHEMA, "at '/kubeletDir': '/var/lib/kubelet/' does not match pattern"),
                refused("duration in words", Map.of("controller", Map.of("config", Map.of("pollInterval", "30 seconds"))), SCHEMA,
                        "at '/controller/config/pollInterval': '30 seconds' does not match pattern"),
                refused("digest not sha256", Map.of("images", Map.of("agent", Map.of("digest", "md5:abc"))), SCHEMA, "at '/images/agent/digest': 'md5:abc' does not match pattern"),
                refused("registry with a scheme", Map.of("global", Map.of("imageRegistry", "https://mirror.lan")), SCHEMA,
                        "at '/global/imageRegistry': 'https://mirror.lan' does not match pattern"),
                refused("sidecar flag without dashes", Map.of("controller", Map.of("provisioner", Map.of("extraArgs", List.of("v=5")))),
                        SCHEMA, "at '/controller/provisioner/extraArgs/0': 'v=5' does not match pattern"),
                // ranges
                refused("port above 65535", Map.of("node", Map.of("healthPort", 70000)), SCHEMA, "at '/node/healthPort': maximum: got 70,000, want 65,535"),
                refused("no replica", Map.of("controller", Map.of("replicas", 0)), SCHEMA, "at '/controller/replicas': minimum: got 0, want 1"),
                refused("controller as root", Map.of("controller", Map.of("runAsUser", 0)), SCHEMA, "at '/controller/runAsUser': minimum: got 0, want 1"),
                refused("attach timeout over an hour", Map.of("node", Map.of("attachTimeoutSeconds", 3601)), SCHEMA,
                        "at '/node/attachTimeoutSeconds': maximum: got 3,601, want 3,600"),
                // checks of the templates
                refused("two backends of one name", backends(List.of(Map.of("name", "tank", "type", "zfs", "pool", "tank"),
                        Map.of("name", "tank", "type", "lvm", "volumeGroup", "vg0"))), "agent.nodes.storage-1.backends",
                        "the name \"tank\" is used twice"),
                refused("agent and node health on one port", Map.of("agent", Map.of("healthPort", 9809)),
                        "agent.healthPort and node.healthPort are both 9809"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refused")
    void refusedWithAMessageNamingTheValue(String rule, Map<String, Object> values, List<String> expected) {
        assertThatThrownBy(() -> HelmChart.template(values, "1.24.0"))
                .as(rule)
                .isInstanceOf(IllegalStateException.class)
                .satisfies(e -> {
                    for (String fragment : expected) {
                        assertThat(e.getMessage()).contains(fragment);
                    }
                });
    }

    private static Arguments refused(String rule, Map<String, Object> values, String... expected) {
        return Arguments.of(rule, values, List.of(expected));
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
