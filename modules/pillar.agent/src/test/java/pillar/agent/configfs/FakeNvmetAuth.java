package pillar.agent.configfs;

import java.util.Optional;

import pillar.agent.configfs.FakeNvmetHosts.Host;
import pillar.api.value.DhchapSecret;
import pillar.api.value.InvalidValueException;

/**
 * DH-HMAC-CHAP between a host and {@link FakeNvmet}'s target, decided as the exchange decides it: the
 * host proves its key only when both sides hold the same secret (same key, same transform); the target
 * proves its controller key only when the host asked for it ({@code dhchap_ctrl_secret}) and both hold
 * the same; a host entry whose stored key the kernel cannot decode refuses every host. The refusals
 * carry the errno the kernel's {@code /dev/nvme-fabrics} write fails with, as measured on Debian's
 * 6.12.117 (host dmesg "failed to connect queue: 0 ret=-126" without a key, "ret=-129" with a wrong one;
 * target dmesg "ctrl 1 fatal error occurred!").
 */
final class FakeNvmetAuth {
    /** The host has no secret but the target asks for authentication. */
    static final String NO_KEY = "Required key not available";
    /** The exchange failed: a wrong secret on either side (EKEYREJECTED, within about 5 s under TCG). */
    static final String REJECTED = "Key was rejected by service";
    /**
     * The kernel's other answer to a wrong secret (EIO, NVMe status 880): 6.12's target logs "host
     * response mismatch" and a fatal error, and the host, missing the failure1, gives up only at its
     * 60 s admin timeout. Seen once in eight wrong-secret connects; the fake always answers {@link #REJECTED}.
     */
    static final String REJECTED_LATE = "Input/output error";

    private FakeNvmetAuth() {
    }

    /** Why {@code entry} refuses a host presenting these secrets ("" none); empty when it admits it. */
    static Optional<String> refusal(Host entry, String hostSecret, String controllerSecret) {
        if (!entry.requiresAuth()) {
            return Optional.empty(); // the host's secrets go unused: the target does not ask
        }
        if (hostSecret.isEmpty()) {
            return Optional.of(NO_KEY);
        }
        if (!decodable(entry.key) || !entry.key.equals(hostSecret)) {
            return Optional.of(REJECTED);
        }
        if (!controllerSecret.isEmpty() && (!decodable(entry.controllerKey) || !entry.controllerKey.equals(controllerSecret))) {
            return Optional.of(REJECTED);
        }
        return Optional.empty();
    }

    private static boolean decodable(String secret) {
        try {
            DhchapSecret.of("key", secret);
            return true;
        } catch (InvalidValueException e) {
            return false;
        }
    }
}
