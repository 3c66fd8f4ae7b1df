package pillar.controller.auth;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.Secret;

/** Writing and reading DH-HMAC-CHAP secrets in a Secret's data (base64); stringData is read too (a mock server keeps it). */
final class Secrets {
    /** The label every Secret of pillar-csi's authentication carries, with its role as value. */
    static final String ROLE = "pillar.csi.io/dhchap";
    static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    static final String MANAGED_BY_VALUE = "pillar-controller";

    private Secrets() {
    }

    /** The two values under those keys, when both are present and well-formed. */
    static Optional<HostSecrets> pair(Secret secret, String hostKey, String controllerKey) {
        Optional<String> host = value(secret, hostKey).filter(DhchapKey::isWellFormed);
        Optional<String> controller = value(secret, controllerKey).filter(DhchapKey::isWellFormed);
        return host.isPresent() && controller.isPresent()
                ? Optional.of(new HostSecrets(host.get(), controller.get())) : Optional.empty();
    }

    /** The Secret data of those values: base64, as the API stores it (a PUT replaces the whole map). */
    static Map<String, String> encoded(Map<String, String> values) {
        Map<String, String> out = new java.util.TreeMap<>();
        values.forEach((k, v) -> out.put(k, Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8))));
        return out;
    }

    static Optional<String> value(Secret secret, String key) {
        Map<String, String> data = secret.getData();
        if (data != null && data.get(key) != null) {
            try {
                return Optional.of(new String(Base64.getDecoder().decode(data.get(key)), StandardCharsets.UTF_8));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        Map<String, String> strings = secret.getStringData();
        return Optional.ofNullable(strings == null ? null : strings.get(key));
    }
}
