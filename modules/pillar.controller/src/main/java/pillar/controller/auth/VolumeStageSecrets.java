package pillar.controller.auth;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.api.context.StageSecrets;
import pillar.api.value.Nqn;
import pillar.controller.crd.Grammars;

/**
 * A Secret per volume in the controller's namespace holding DH-HMAC-CHAP key pairs per node under the
 * keys of {@link StageSecrets}. As the stage Secret ({@link #stage}, {@value #PREFIX}{@code <volume name>},
 * which the StorageClass names with {@code ${pv.name}} and kubelet hands to NodeStageVolume of every node
 * the volume is published to) it holds no new keys: it exists because kubelet refuses to stage without
 * it, and keeps the node keys of publications made by versions before per-publication keys until those
 * end. The same shape, under another name and with TLS keys beside, is the controller-only record of
 * {@link PublicationKeys}.
 * Values are never logged.
 */
public final class VolumeStageSecrets {
    /** The name prefix; the StorageClass's node-stage-secret-name is this and {@code ${pv.name}}. */
    public static final String PREFIX = "pillar-auth-";

    private final KubernetesClient client;
    private final String namespace;
    private final String prefix;
    private final String role;

    private VolumeStageSecrets(KubernetesClient client, String namespace, String prefix, String role) {
        this.client = client;
        this.namespace = namespace;
        this.prefix = prefix;
        this.role = role;
    }

    /** The volumes' stage Secrets in {@code namespace}. */
    public static VolumeStageSecrets stage(KubernetesClient client, String namespace) {
        return new VolumeStageSecrets(client, namespace, PREFIX, "stage");
    }

    /** Per-volume Secrets named {@code prefix<volume name>} whose role label is {@code role}. */
    static VolumeStageSecrets named(KubernetesClient client, String namespace, String prefix, String role) {
        return new VolumeStageSecrets(client, namespace, prefix, role);
    }

    /** The controller's namespace, where the Secrets live. */
    public String namespace() {
        return namespace;
    }

    /** The stage Secret's name for a volume, or empty when the name cannot make one (too long, not lower case). */
    public static Optional<String> secretName(String volumeName) {
        return name(PREFIX, volumeName);
    }

    private static Optional<String> name(String prefix, String volumeName) {
        String name = prefix + volumeName;
        return Grammars.isObjectName(name) ? Optional.of(name) : Optional.empty();
    }

    /** Creates the volume's Secret without keys when it does not exist; an existing one is left as it is. */
    public void ensure(String volumeName) {
        String name = name(volumeName);
        Secret current = client.secrets().inNamespace(namespace).withName(name).get();
        if (current == null) {
            write(name, null, Map.of());
        }
    }

    /** Writes (creates or updates) the node's keys into the volume's Secret, leaving other nodes' keys. */
    void put(String volumeName, Nqn node, HostSecrets secrets) {
        putAll(volumeName, Map.of(StageSecrets.hostKey(node.value()), secrets.hostKey(),
                StageSecrets.controllerKey(node.value()), secrets.controllerKey()));
    }

    /** Writes (creates or updates) these entries into the volume's Secret, leaving the others. */
    void putAll(String volumeName, Map<String, String> entries) {
        String name = name(volumeName);
        Secret current = client.secrets().inNamespace(namespace).withName(name).get();
        Map<String, String> data = new HashMap<>(current == null ? Map.of() : strings(current));
        data.putAll(entries);
        write(name, current, data);
    }

    /** The value of one entry of the volume's Secret, well-formed or not. */
    Optional<String> value(String volumeName, String key) {
        Secret current = client.secrets().inNamespace(namespace).withName(name(volumeName)).get();
        return current == null ? Optional.empty() : Secrets.value(current, key);
    }

    /** The node's keys in the volume's Secret, if both are there and well-formed. */
    public Optional<HostSecrets> get(String volumeName, Nqn node) {
        Secret current = client.secrets().inNamespace(namespace).withName(name(volumeName)).get();
        return current == null ? Optional.empty()
                : Secrets.pair(current, StageSecrets.hostKey(node.value()), StageSecrets.controllerKey(node.value()));
    }

    /** Whether the volume's Secret holds any key of the node, well-formed or not. */
    boolean holds(String volumeName, Nqn node) {
        Secret current = client.secrets().inNamespace(namespace).withName(name(volumeName)).get();
        return current != null && (Secrets.value(current, StageSecrets.hostKey(node.value())).isPresent()
                || Secrets.value(current, StageSecrets.controllerKey(node.value())).isPresent());
    }

    /** Removes the node's keys from the volume's Secret (nothing when it has none). */
    public void remove(String volumeName, Nqn node) {
        removeAll(volumeName, List.of(StageSecrets.hostKey(node.value()), StageSecrets.controllerKey(node.value())));
    }

    /** Removes these entries from the volume's Secret, in one write (nothing when it has none of them). */
    void removeAll(String volumeName, List<String> keys) {
        String name = name(volumeName);
        Secret current = client.secrets().inNamespace(namespace).withName(name).get();
        if (current == null) {
            return;
        }
        Map<String, String> data = new HashMap<>(strings(current));
        if (data.keySet().removeAll(keys)) {
            write(name, current, data);
        }
    }

    /** Deletes the volume's Secret (nothing when it is gone). */
    public void delete(String volumeName) {
        client.secrets().inNamespace(namespace).withName(name(volumeName)).delete();
    }

    private String name(String volumeName) {
        return name(prefix, volumeName).orElseThrow(() -> new IllegalArgumentException("volume name "
                + Grammars.printable(volumeName) + " makes no Secret name"));
    }

    private void write(String name, Secret current, Map<String, String> data) {
        Secret next = new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .withResourceVersion(current == null ? null : current.getMetadata().getResourceVersion())
                .withLabels(Map.of(Secrets.MANAGED_BY, Secrets.MANAGED_BY_VALUE, Secrets.ROLE, role))
                .endMetadata().withType("Opaque").withData(Secrets.encoded(data)).build();
        if (current == null) {
            client.secrets().inNamespace(namespace).resource(next).create();
        } else {
            client.secrets().inNamespace(namespace).resource(next).update();
        }
    }

    private static Map<String, String> strings(Secret secret) {
        Map<String, String> out = new HashMap<>();
        if (secret.getStringData() != null) {
            out.putAll(secret.getStringData());
        }
        if (secret.getData() != null) {
            secret.getData().keySet().forEach(k -> Secrets.value(secret, k).ifPresent(v -> out.put(k, v)));
        }
        return out;
    }
}
