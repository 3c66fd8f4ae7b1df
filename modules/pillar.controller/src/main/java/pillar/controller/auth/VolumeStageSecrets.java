package pillar.controller.auth;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.api.context.StageSecrets;
import pillar.api.value.Nqn;
import pillar.controller.crd.Grammars;

/**
 * The per-volume Secret kubelet passes to NodeStageVolume as its {@code secrets}: named
 * {@value #PREFIX}{@code <volume name>} (the StorageClass names it with {@code ${pv.name}}), in the
 * controller's namespace, holding the keys of {@link StageSecrets} for exactly the nodes the volume is
 * published to. Written on ControllerPublishVolume (create or update), a node's keys removed on
 * its unpublish, the Secret deleted with the volume. Values are never logged.
 */
public final class VolumeStageSecrets {
    /** The name prefix; the StorageClass's node-stage-secret-name is this and {@code ${pv.name}}. */
    public static final String PREFIX = "pillar-auth-";

    private final KubernetesClient client;
    private final String namespace;

    public VolumeStageSecrets(KubernetesClient client, String namespace) {
        this.client = client;
        this.namespace = namespace;
    }

    /** The controller's namespace, where the Secrets live. */
    public String namespace() {
        return namespace;
    }

    /** The Secret's name for a volume, or empty when the name cannot make one (too long, not lower case). */
    public static Optional<String> secretName(String volumeName) {
        String name = PREFIX + volumeName;
        return Grammars.isObjectName(name) ? Optional.of(name) : Optional.empty();
    }

    /** Writes (creates or updates) the node's keys into the volume's Secret, leaving other nodes' keys. */
    public void put(String volumeName, Nqn node, HostSecrets secrets) {
        String name = name(volumeName);
        Secret current = client.secrets().inNamespace(namespace).withName(name).get();
        Map<String, String> data = new HashMap<>(current == null ? Map.of() : strings(current));
        data.put(StageSecrets.hostKey(node.value()), secrets.hostKey());
        data.put(StageSecrets.controllerKey(node.value()), secrets.controllerKey());
        write(name, current, data);
    }

    /** The node's keys in the volume's Secret, if both are there and well-formed. */
    public Optional<HostSecrets> get(String volumeName, Nqn node) {
        Secret current = client.secrets().inNamespace(namespace).withName(name(volumeName)).get();
        return current == null ? Optional.empty()
                : Secrets.pair(current, StageSecrets.hostKey(node.value()), StageSecrets.controllerKey(node.value()));
    }

    /** Removes the node's keys from the volume's Secret (nothing when it has none). */
    public void remove(String volumeName, Nqn node) {
        String name = name(volumeName);
        Secret current = client.secrets().inNamespace(namespace).withName(name).get();
        if (current == null) {
            return;
        }
        Map<String, String> data = new HashMap<>(strings(current));
        boolean had = data.remove(StageSecrets.hostKey(node.value())) != null;
        had |= data.remove(StageSecrets.controllerKey(node.value())) != null;
        if (had) {
            write(name, current, data);
        }
    }

    /** Deletes the volume's Secret (nothing when it is gone). */
    public void delete(String volumeName) {
        client.secrets().inNamespace(namespace).withName(name(volumeName)).delete();
    }

    private String name(String volumeName) {
        return secretName(volumeName).orElseThrow(() -> new IllegalArgumentException("volume name "
                + Grammars.printable(volumeName) + " makes no Secret name"));
    }

    private void write(String name, Secret current, Map<String, String> data) {
        Secret next = new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .withResourceVersion(current == null ? null : current.getMetadata().getResourceVersion())
                .withLabels(Map.of(NodeSecrets.MANAGED_BY, NodeSecrets.MANAGED_BY_VALUE, NodeSecrets.ROLE, "stage"))
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
