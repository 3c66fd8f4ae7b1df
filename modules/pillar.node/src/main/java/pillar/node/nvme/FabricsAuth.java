package pillar.node.nvme;

import java.util.Map;
import java.util.Optional;

import pillar.api.context.PublishContext;
import pillar.api.context.StageSecrets;
import pillar.api.value.DhchapSecret;
import pillar.api.value.InvalidValueException;

/**
 * The DH-HMAC-CHAP secrets this host connects with ({@code dhchap_secret=}, {@code dhchap_ctrl_secret=}
 * of {@code /dev/nvme-fabrics}) when the publish context says {@link PublishContext#AUTH}={@value
 * PublishContext#AUTH_DHCHAP}: the publication's own, from the publish context ({@link
 * PublishContext#DHCHAP_SECRET}, with the {@link PublishContext#HOST_NQN} they authenticate), or, for a
 * publication made before per-publication keys, the node's from NodeStageVolume's secrets. Never stored
 * (the stage record keeps the target only) and never shown: {@link #toString()} and every error name
 * the key, not the value.
 *
 * @param hostSecret       the host's secret: the target checks it
 * @param controllerSecret the controller's secret: the host checks the target with it (bidirectional)
 */
public record FabricsAuth(DhchapSecret hostSecret, Optional<DhchapSecret> controllerSecret) {

    /**
     * What the request asks for: empty when the publish context has no {@code auth}. Throws
     * {@link InvalidValueException} for an {@code auth} other than {@value PublishContext#AUTH_DHCHAP},
     * a malformed secret, or a publication secret without its host NQN, and {@link MissingSecretException}
     * when neither the publish context nor the secrets (under {@code nodeId}'s key) hold a host secret.
     */
    public static Optional<FabricsAuth> fromStage(Map<String, String> context, Map<String, String> secrets, String nodeId) {
        String mode = context.get(PublishContext.AUTH);
        if (mode == null || mode.isEmpty()) {
            return Optional.empty();
        }
        if (!mode.equals(PublishContext.AUTH_DHCHAP)) {
            throw new InvalidValueException("publish_context." + PublishContext.AUTH,
                    "must be " + PublishContext.AUTH_DHCHAP + " (the only in-band authentication pillar-csi knows)");
        }
        if (context.containsKey(PublishContext.DHCHAP_SECRET) || context.containsKey(PublishContext.HOST_NQN)) {
            return Optional.of(fromContext(context));
        }
        String hostKey = StageSecrets.hostKey(nodeId);
        String value = secrets.get(hostKey);
        if (value == null || value.isEmpty()) {
            throw new MissingSecretException("the target requires DH-HMAC-CHAP but NodeStageVolume's secrets have no '"
                    + hostKey + "': does the StorageClass name the Secret in csi.storage.k8s.io/node-stage-secret-name,"
                    + " and has the controller written this node's key into it?");
        }
        String controllerKey = StageSecrets.controllerKey(nodeId);
        String controller = secrets.getOrDefault(controllerKey, "");
        return Optional.of(new FabricsAuth(DhchapSecret.of("secrets." + hostKey, value),
                controller.isEmpty() ? Optional.empty() : Optional.of(DhchapSecret.of("secrets." + controllerKey, controller))));
    }

    private static FabricsAuth fromContext(Map<String, String> context) {
        String host = context.getOrDefault(PublishContext.HOST_NQN, "");
        if (host.isEmpty()) {
            throw new InvalidValueException("publish_context." + PublishContext.HOST_NQN, "is required with "
                    + PublishContext.DHCHAP_SECRET + ": a publication's secret authenticates its own host NQN only");
        }
        String value = context.getOrDefault(PublishContext.DHCHAP_SECRET, "");
        if (value.isEmpty()) {
            throw new MissingSecretException("the target requires DH-HMAC-CHAP and the publish context names the host NQN "
                    + host + " but carries no " + PublishContext.DHCHAP_SECRET + ": publish the volume again");
        }
        String controller = context.getOrDefault(PublishContext.DHCHAP_CTRL_SECRET, "");
        return new FabricsAuth(DhchapSecret.of("publish_context." + PublishContext.DHCHAP_SECRET, value),
                controller.isEmpty() ? Optional.empty()
                        : Optional.of(DhchapSecret.of("publish_context." + PublishContext.DHCHAP_CTRL_SECRET, controller)));
    }

    @Override
    public String toString() {
        return "FabricsAuth[" + (controllerSecret.isPresent() ? "bidirectional" : "one-way") + "]";
    }

    /** The request needs a secret it does not carry: FAILED_PRECONDITION. */
    public static final class MissingSecretException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MissingSecretException(String message) {
            super(message);
        }
    }
}
