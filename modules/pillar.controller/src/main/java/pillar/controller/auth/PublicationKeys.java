package pillar.controller.auth;

import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.api.context.PublicationHost;
import pillar.api.context.StageSecrets;
import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;

/**
 * The keys of each publication (a node and a volume): its DH-HMAC-CHAP pair and its TLS pre-shared key,
 * each where its volume's export requires it; random, made at the publication's first
 * ControllerPublishVolume and kept, for idempotent repeats, in a Secret per volume that only the
 * controller reads ({@value #PREFIX}{@code <volume name>}, never named by a StorageClass or a PV, so no
 * node's kubelet can fetch it); removed at the unpublish, deleted with the volume. A node's entries are
 * those of {@link StageSecrets} and {@link #tlsKey}, which share the digest of its node ID.
 *
 * <p>Invariants: a DH-HMAC-CHAP pair authenticates one host NQN ({@link PublicationHost}) at one target,
 * and that NQN is admitted by one subsystem only; a TLS key is inserted under the identity of one host
 * NQN and one subsystem NQN only. So a key read by one node (its own publish context) opens nothing it
 * is not itself published to. A live publication's keys never change, so no rotation can break a
 * connected volume: a node's keys are renewed by its next publications (a new publication after an
 * unpublish gets new keys). Callers hold the volume's lock.
 */
public final class PublicationKeys {
    /** The name prefix: as long as {@link VolumeStageSecrets#PREFIX}, so every volume name that makes one makes the other. */
    public static final String PREFIX = "pillar-keys-";
    /** The role label's value on these Secrets. */
    public static final String ROLE_VALUE = "publication";
    private static final String STAGE_HOST_PREFIX = "dhchap-";
    private static final String STAGE_HOST_SUFFIX = ".secret";

    private final VolumeStageSecrets store;
    private final SecureRandom random;

    public PublicationKeys(KubernetesClient client, String namespace, SecureRandom random) {
        this.store = VolumeStageSecrets.named(client, namespace, PREFIX, ROLE_VALUE);
        this.random = random;
    }

    /**
     * The entry of the TLS key of {@code nodeId}: {@code tls-<digest>.psk}, with the digest of the node's
     * {@link StageSecrets} entries ({@code dhchap-<digest>.secret}), within the Secret key grammar.
     */
    public static String tlsKey(String nodeId) {
        String host = StageSecrets.hostKey(nodeId);
        if (!host.startsWith(STAGE_HOST_PREFIX) || !host.endsWith(STAGE_HOST_SUFFIX)) {
            throw new IllegalStateException("StageSecrets names a node's host secret otherwise than dhchap-<digest>.secret");
        }
        return "tls-" + host.substring(STAGE_HOST_PREFIX.length(), host.length() - STAGE_HOST_SUFFIX.length()) + ".psk";
    }

    /**
     * The publication's DH-HMAC-CHAP keys: the recorded ones, or new ones recorded first when there are
     * none. A record that is there but malformed is {@link MalformedKeysException}: it is never replaced
     * behind a node that may be connected with the keys it held.
     */
    public HostSecrets obtain(String volumeName, Nqn node) {
        return obtain(volumeName, node, "DH-HMAC-CHAP keys", "its two dhchap- entries", () -> store.get(volumeName, node),
                () -> store.holds(volumeName, node),
                () -> store.put(volumeName, node, new HostSecrets(DhchapKey.generate(random), DhchapKey.generate(random))));
    }

    /** The publication's TLS pre-shared key, as {@link #obtain} its DH-HMAC-CHAP keys. */
    public TlsPsk obtainTls(String volumeName, Nqn node) {
        String entry = tlsKey(node.value());
        return obtain(volumeName, node, "TLS key", "its " + entry + " entry",
                () -> store.value(volumeName, entry).flatMap(PublicationKeys::tlsPsk),
                () -> store.value(volumeName, entry).isPresent(),
                () -> store.putAll(volumeName, Map.of(entry, TlsPsk.generate(random).value())));
    }

    private <T> T obtain(String volumeName, Nqn node, String what, String entries, Supplier<Optional<T>> recorded,
                         BooleanSupplier held, Runnable make) {
        Optional<T> found = recorded.get();
        if (found.isPresent()) {
            return found.get();
        }
        if (held.getAsBoolean()) {
            throw new MalformedKeysException("the " + what + " recorded for node " + node + " in Secret " + store.namespace()
                    + "/" + PREFIX + volumeName + ": not well-formed (values not shown); restore them, or unpublish the"
                    + " volume from the node (or remove " + entries + ") so that its next publication gets new keys");
        }
        make.run();
        return recorded.get().orElseThrow(() -> new IllegalStateException("the " + what + " of volume " + volumeName
                + " for node " + node + " could not be read back after writing them"));
    }

    private static Optional<TlsPsk> tlsPsk(String value) {
        try {
            return Optional.of(TlsPsk.of("psk", value));
        } catch (InvalidValueException e) {
            return Optional.empty();
        }
    }

    /** The publication's recorded keys, if any. */
    public Optional<HostSecrets> read(String volumeName, Nqn node) {
        return store.get(volumeName, node);
    }

    /** Forgets the publication's keys, DH-HMAC-CHAP and TLS, in one write (its unpublish). */
    public void remove(String volumeName, Nqn node) {
        store.removeAll(volumeName, List.of(StageSecrets.hostKey(node.value()), StageSecrets.controllerKey(node.value()),
                tlsKey(node.value())));
    }

    /** A publication's recorded keys are damaged: the publish is FAILED_PRECONDITION until an operator decides. */
    public static final class MalformedKeysException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MalformedKeysException(String message) {
            super(message);
        }
    }

    /** Forgets every publication's keys of the volume (its deletion). */
    public void delete(String volumeName) {
        store.delete(volumeName);
    }
}
