package pillar.node.nvme;

import java.util.Map;
import java.util.Optional;

import pillar.api.context.PublishContext;
import pillar.api.value.TlsPsk;

/**
 * The TLS key a connect to a TLS target names ({@code tls,keyring=<keyring>,tls_key=<key>} of
 * {@code /dev/nvme-fabrics}): serials of the kernel's key retention service, not the key itself, which
 * the kernel's handshake ({@code tlshd}) reads from the keyring.
 *
 * @param keyring the keyring holding the key, which {@code tlshd} links to read it
 * @param key     the pre-shared key under its identity
 */
public record FabricsTls(int keyring, int key) {

    /**
     * The publication's pre-shared key from the publish context when the target is a TLS one: empty when
     * {@link PublishContext#TLS} is absent; {@link FabricsAuth.MissingSecretException} when it is there without
     * {@link PublishContext#TLS_PSK}; {@link pillar.api.value.InvalidValueException} for a malformed key.
     */
    public static Optional<TlsPsk> pskFromStage(Map<String, String> context) {
        if (context.getOrDefault(PublishContext.TLS, "").isEmpty()) {
            return Optional.empty();
        }
        String value = context.getOrDefault(PublishContext.TLS_PSK, "");
        if (value.isEmpty()) {
            throw new FabricsAuth.MissingSecretException("the target requires NVMe/TCP TLS and the publish context carries no "
                    + PublishContext.TLS_PSK + ": publish the volume again");
        }
        return Optional.of(TlsPsk.of("publish_context." + PublishContext.TLS_PSK, value));
    }
}
