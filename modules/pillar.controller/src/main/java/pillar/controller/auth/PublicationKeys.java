package pillar.controller.auth;

import java.security.SecureRandom;
import java.util.Optional;

import io.fabric8.kubernetes.client.KubernetesClient;
import pillar.api.context.PublicationHost;
import pillar.api.value.Nqn;

/**
 * The DH-HMAC-CHAP keys of each publication (a node and a volume): random, made at the publication's
 * first ControllerPublishVolume and kept, for idempotent repeats, in a Secret per volume that only the
 * controller reads ({@value #PREFIX}{@code <volume name>}, never named by a StorageClass or a PV, so no
 * node's kubelet can fetch it); removed at the unpublish, deleted with the volume.
 *
 * <p>Invariants: a key pair authenticates one host NQN ({@link PublicationHost}) at one target, and
 * that NQN is admitted by one subsystem only, so a key read by one node (its own publish context)
 * authenticates nothing it is not itself published to. A live publication's keys never change, so no
 * rotation can break a connected volume: a node's keys are renewed by its next publications (a new
 * publication after an unpublish gets new keys). Callers hold the volume's lock.
 */
public final class PublicationKeys {
    /** The name prefix: as long as {@link VolumeStageSecrets#PREFIX}, so every volume name that makes one makes the other. */
    public static final String PREFIX = "pillar-keys-";
    /** The role label's value on these Secrets. */
    public static final String ROLE_VALUE = "publication";

    private final VolumeStageSecrets store;
    private final SecureRandom random;

    public PublicationKeys(KubernetesClient client, String namespace, SecureRandom random) {
        this.store = VolumeStageSecrets.named(client, namespace, PREFIX, ROLE_VALUE);
        this.random = random;
    }

    /**
     * The publication's keys: the recorded ones, or new ones recorded first when there are none. A record
     * that is there but malformed is {@link MalformedKeysException}: it is never replaced behind a node
     * that may be connected with the keys it held.
     */
    public HostSecrets obtain(String volumeName, Nqn node) {
        Optional<HostSecrets> recorded = store.get(volumeName, node);
        if (recorded.isPresent()) {
            return recorded.get();
        }
        if (store.holds(volumeName, node)) {
            throw new MalformedKeysException("the DH-HMAC-CHAP keys recorded for node " + node + " in Secret "
                    + store.namespace() + "/" + PREFIX + volumeName + " are not well-formed (values not shown): restore them,"
                    + " or unpublish the volume from the node (or remove its two entries) so that its next publication"
                    + " gets new keys");
        }
        HostSecrets fresh = new HostSecrets(DhchapKey.generate(random), DhchapKey.generate(random));
        store.put(volumeName, node, fresh);
        return store.get(volumeName, node).orElseThrow(() -> new IllegalStateException("the keys of volume " + volumeName
                + " for node " + node + " could not be read back after writing them"));
    }

    /** The publication's recorded keys, if any. */
    public Optional<HostSecrets> read(String volumeName, Nqn node) {
        return store.get(volumeName, node);
    }

    /** Forgets the publication's keys (its unpublish). */
    public void remove(String volumeName, Nqn node) {
        store.remove(volumeName, node);
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
