package pillar.api.context;

/**
 * The keys of the CSI {@code secrets} that NodeStageVolume receives (kubelet reads them from the
 * Secret the StorageClass names in {@code csi.storage.k8s.io/node-stage-secret-name}): per node, the
 * DH-HMAC-CHAP secrets of that node's host NQN, in the kernel's {@code DHHC-1:<hh>:<base64>:} form.
 * A node reads only the keys prefixed with its own node ID; the values never reach a log or an error.
 */
public final class StageSecrets {
    private static final String HOST_KEY = ".dhchap-secret";
    private static final String CONTROLLER_KEY = ".dhchap-ctrl-secret";

    private StageSecrets() {
    }

    /** The key of the host secret of {@code nodeId} (the initiator's {@code dhchap_secret}). */
    public static String hostKey(String nodeId) {
        return nodeId + HOST_KEY;
    }

    /** The key of the controller secret of {@code nodeId} (bidirectional, {@code dhchap_ctrl_secret}); may be absent. */
    public static String controllerKey(String nodeId) {
        return nodeId + CONTROLLER_KEY;
    }
}
