package pillar.controller.auth;

import java.security.SecureRandom;
import java.util.Arrays;

import pillar.api.value.DhchapSecret;
import pillar.api.value.InvalidValueException;

/**
 * The DH-HMAC-CHAP secrets the controller makes and keeps: {@value #KEY_BYTES} random bytes in the
 * representation {@link DhchapSecret} defines ({@code DHHC-1:00:<base64(key || crc32)>:}, the key used
 * as it is), which is also what the agent and the node check before a secret reaches the kernel.
 */
public final class DhchapKey {
    /** Bytes of a generated key (the kernel accepts 32, 48 and 64). */
    public static final int KEY_BYTES = 32;
    private static final int NO_TRANSFORM = 0;

    private DhchapKey() {
    }

    /** A new secret of {@value #KEY_BYTES} random bytes. */
    public static String generate(SecureRandom random) {
        byte[] key = new byte[KEY_BYTES];
        random.nextBytes(key);
        try {
            return format(key);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    /** The representation of a key of 32, 48 or 64 bytes; another length is IllegalArgumentException. */
    public static String format(byte[] key) {
        return DhchapSecret.encode(NO_TRANSFORM, key).value();
    }

    /** Whether the value is a secret the kernel accepts in that form (prefix, base64, length, CRC). */
    public static boolean isWellFormed(String secret) {
        try {
            DhchapSecret.of("secret", secret);
            return true;
        } catch (InvalidValueException e) {
            return false;
        }
    }
}
