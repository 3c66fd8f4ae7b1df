package pillar.api.context;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The keys of the CSI {@code secrets} that NodeStageVolume receives (kubelet reads them from the
 * Secret the StorageClass names in {@code csi.storage.k8s.io/node-stage-secret-name}): per node, the
 * DH-HMAC-CHAP secrets of that node's host NQN, as versions before per-publication keys wrote them
 * (read now only for publications made then: {@link PublicationHost}), in the kernel's {@code DHHC-1:<hh>:<base64>:} form.
 * A node ID is a host NQN, whose {@code :} a Secret key may not hold, so each key names its node by a
 * digest: {@code dhchap-<first 40 hex digits of SHA-256(node ID)>.secret} (and {@code .ctrl-secret}),
 * within the Secret key grammar {@code [-._a-zA-Z0-9]+}. A node reads only its own keys; the values
 * never reach a log or an error.
 */
public final class StageSecrets {
    private static final int DIGEST_HEX = 40;

    private StageSecrets() {
    }

    /** The key of the host secret of {@code nodeId} (the initiator's {@code dhchap_secret}). */
    public static String hostKey(String nodeId) {
        return "dhchap-" + digest(nodeId) + ".secret";
    }

    /** The key of the controller secret of {@code nodeId} (bidirectional, {@code dhchap_ctrl_secret}); may be absent. */
    public static String controllerKey(String nodeId) {
        return "dhchap-" + digest(nodeId) + ".ctrl-secret";
    }

    private static String digest(String nodeId) {
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256").digest(nodeId.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha).substring(0, DIGEST_HEX);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
