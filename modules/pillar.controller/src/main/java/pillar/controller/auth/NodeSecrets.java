package pillar.controller.auth;

import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import pillar.api.value.Nqn;

/**
 * Each node's DH-HMAC-CHAP secrets, one Secret per node in the controller's namespace, named from a
 * digest of the node ID (a host NQN is no valid object name) and labelled as pillar-csi's, with no
 * owner: a controller restart or a reinstall keeps them. Generated on first need; deleting a node's
 * Secret rotates its secrets (the next {@link #obtain} generates new ones). A Secret whose values
 * are not well-formed is replaced the same way. Values are never logged.
 */
public final class NodeSecrets {
    /** The label every Secret of pillar-csi's authentication carries, with its role as value. */
    public static final String ROLE = "pillar.csi.io/dhchap";
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String MANAGED_BY_VALUE = "pillar-controller";
    /** The annotation holding the node ID the Secret is for (the name is only its digest). */
    public static final String NODE_ID = "pillar.csi.io/node-id";
    static final String HOST_KEY = "dhchap-secret";
    static final String CONTROLLER_KEY = "dhchap-ctrl-secret";

    private final KubernetesClient client;
    private final String namespace;
    private final SecureRandom random;

    public NodeSecrets(KubernetesClient client, String namespace, SecureRandom random) {
        this.client = client;
        this.namespace = namespace;
        this.random = random;
    }

    /** The name of a node's Secret: {@code pillar-dhchap-} and 40 hex digits of SHA-256 of its node ID. */
    public static String secretName(Nqn node) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(node.value().getBytes(StandardCharsets.UTF_8));
            return "pillar-dhchap-" + HexFormat.of().formatHex(digest, 0, 20);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** The node's secrets, generated and stored when it has none (or only malformed ones). */
    public synchronized HostSecrets obtain(Nqn node) {
        Secret stored = client.secrets().inNamespace(namespace).withName(secretName(node)).get();
        Optional<HostSecrets> existing = stored == null ? Optional.empty() : Secrets.pair(stored, HOST_KEY, CONTROLLER_KEY);
        if (existing.isPresent()) {
            return existing.get();
        }
        HostSecrets fresh = new HostSecrets(DhchapKey.generate(random), DhchapKey.generate(random));
        Secret secret = new SecretBuilder().withNewMetadata().withNamespace(namespace).withName(secretName(node))
                .withResourceVersion(stored == null ? null : stored.getMetadata().getResourceVersion())
                .withLabels(Map.of(MANAGED_BY, MANAGED_BY_VALUE, ROLE, "node"))
                .withAnnotations(Map.of(NODE_ID, node.value())).endMetadata()
                .withType("Opaque")
                .withData(Secrets.encoded(Map.of(HOST_KEY, fresh.hostKey(), CONTROLLER_KEY, fresh.controllerKey()))).build();
        try {
            if (stored == null) {
                client.secrets().inNamespace(namespace).resource(secret).create();
            } else {
                client.secrets().inNamespace(namespace).resource(secret).update();
            }
        } catch (KubernetesClientException e) {
            if (e.getCode() != HttpURLConnection.HTTP_CONFLICT) {
                throw e;
            }
        }
        // another replica may have won the race (409 on create, or on update by resourceVersion): what is stored counts
        return read(node).orElseThrow(() -> new IllegalStateException("the Secret " + namespace + "/" + secretName(node)
                + " of node " + node + " could not be read back after writing it"));
    }

    /** The node's stored secrets, if it has well-formed ones. */
    public Optional<HostSecrets> read(Nqn node) {
        Secret secret = client.secrets().inNamespace(namespace).withName(secretName(node)).get();
        return secret == null ? Optional.empty() : Secrets.pair(secret, HOST_KEY, CONTROLLER_KEY);
    }
}
