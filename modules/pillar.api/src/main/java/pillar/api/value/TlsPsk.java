package pillar.api.value;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;

/**
 * An NVMe/TCP TLS pre-shared key as pillar-csi hands it to the target's and the host's keyrings: the
 * retained PSK itself, 32 bytes (TLS_AES_128_GCM_SHA256) or 48 (TLS_AES_256_GCM_SHA384), base64. It is
 * inserted as it is under its {@link #identity identity}, never derived from a configured key: both
 * ends are pillar-csi's, which generates one per publication.
 *
 * <p>The key never reaches a message: {@link #toString()} and every {@link InvalidValueException} name
 * the field and the rule only.
 */
public record TlsPsk(String value) {
    /** The length of a generated key: TLS_AES_128_GCM_SHA256, the suite every NVMe/TCP TLS host supports. */
    public static final int GENERATED_LENGTH = 32;

    public TlsPsk {
        decode("psk", value);
    }

    /** The key {@code value}; {@code field} names it in the error (never the value itself). */
    public static TlsPsk of(String field, String value) {
        decode(field, value);
        return new TlsPsk(value);
    }

    /** A new random key of {@value #GENERATED_LENGTH} bytes. */
    public static TlsPsk generate(SecureRandom random) {
        byte[] key = new byte[GENERATED_LENGTH];
        random.nextBytes(key);
        return new TlsPsk(Base64.getEncoder().encodeToString(key));
    }

    /** The key's bytes, for a keyring. */
    public byte[] bytes() {
        return decode("psk", value);
    }

    /**
     * The PSK identity of this key for {@code host} at {@code subsystem}, {@code NVMe0R0<h> <hostnqn> <subnqn>}
     * (NVMe/TCP identity version 0, a retained key, h 1 for SHA-256 and 2 for SHA-384): what the kernel's host
     * looks up in its keyring and sends, and what the target's handshake looks up in the {@code .nvme} keyring.
     */
    public String identity(Nqn host, Nqn subsystem) {
        return identity(bytes().length == GENERATED_LENGTH ? 1 : 2, host, subsystem);
    }

    /** Both identities a key of {@code host} at {@code subsystem} may have (SHA-256 and SHA-384): what to remove. */
    public static List<String> identities(Nqn host, Nqn subsystem) {
        return List.of(identity(1, host, subsystem), identity(2, host, subsystem));
    }

    private static String identity(int hash, Nqn host, Nqn subsystem) {
        return "NVMe0R0" + hash + " " + host.value() + " " + subsystem.value();
    }

    @Override
    public String toString() {
        return "TlsPsk[<redacted>]";
    }

    private static byte[] decode(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidValueException(field, "must not be empty");
        }
        if (value.length() > 64) {
            throw new InvalidValueException(field, "is longer than a TLS pre-shared key can be (" + value.length() + " characters)");
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException(field, "is not valid base64");
        }
        if (key.length != 32 && key.length != 48) {
            throw new InvalidValueException(field, "must be a key of 32 or 48 bytes, is " + key.length);
        }
        return key;
    }
}
