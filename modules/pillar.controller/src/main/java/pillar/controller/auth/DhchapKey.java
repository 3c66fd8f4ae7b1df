package pillar.controller.auth;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.CRC32;

/**
 * A DH-HMAC-CHAP secret in the kernel's (and nvme-cli's {@code gen-dhchap-key}) representation:
 * {@code DHHC-1:00:<base64(key || crc32(key) little-endian)>:}, where {@code 00} says the key is
 * used as it is (no hash transformation) and the key is 32, 48 or 64 bytes. The kernel refuses a
 * secret whose length or CRC does not match ({@code nvme_auth_extract_key}), so a malformed one
 * is never written to a target.
 */
public final class DhchapKey {
    /** Bytes of a generated key (the kernel accepts 32, 48 and 64). */
    public static final int KEY_BYTES = 32;
    private static final String PREFIX = "DHHC-1:00:";

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

    /** The representation of a key of 32, 48 or 64 bytes. */
    public static String format(byte[] key) {
        if (key.length != 32 && key.length != 48 && key.length != 64) {
            throw new IllegalArgumentException("a DH-HMAC-CHAP key is 32, 48 or 64 bytes, not " + key.length);
        }
        ByteBuffer payload = ByteBuffer.allocate(key.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        payload.put(key).putInt((int) crc32(key, key.length));
        return PREFIX + Base64.getEncoder().encodeToString(payload.array()) + ":";
    }

    /** Whether the value is a secret the kernel accepts in that form (prefix, base64, length, CRC). */
    public static boolean isWellFormed(String secret) {
        if (secret == null || !secret.startsWith(PREFIX) || !secret.endsWith(":") || secret.length() > 128) {
            return false;
        }
        byte[] payload;
        try {
            payload = Base64.getDecoder().decode(secret.substring(PREFIX.length(), secret.length() - 1));
        } catch (IllegalArgumentException e) {
            return false;
        }
        int keyLength = payload.length - 4;
        if (keyLength != 32 && keyLength != 48 && keyLength != 64) {
            return false;
        }
        int crc = ByteBuffer.wrap(payload, keyLength, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        return crc == (int) crc32(payload, keyLength);
    }

    private static long crc32(byte[] bytes, int length) {
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, length);
        return crc.getValue();
    }
}
