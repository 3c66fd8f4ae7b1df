package pillar.api.value;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;

/**
 * An NVMe DH-HMAC-CHAP secret in the representation of NVMe base specification 2.0 (section
 * "Secret representation") that the kernel's nvmet {@code dhchap_key} and the initiator's
 * {@code dhchap_secret=} take: {@code DHHC-1:<hh>:<base64 of key || CRC-32>:}, {@code hh} 00 (the key
 * is used as is) or 01/02/03 (transformed with SHA-256/384/512), a key of 32, 48 or 64 bytes and its
 * CRC-32 (little-endian) appended. Validated whole here, so the kernel never sees a secret it would
 * refuse only at connect time.
 *
 * <p>The secret never reaches a message: {@link #toString()} and every {@link InvalidValueException}
 * name the field and the rule only. {@link #value()} is for the kernel and the durable record.
 */
public record DhchapSecret(String value) {
    private static final String PREFIX = "DHHC-1:";
    private static final Pattern FORMAT = Pattern.compile("DHHC-1:(0[0-3]):([A-Za-z0-9+/]+={0,2}):");

    public DhchapSecret {
        check("secret", value);
    }

    /** The secret {@code value}; {@code field} names it in the error (never the value itself). */
    public static DhchapSecret of(String field, String value) {
        check(field, value);
        return new DhchapSecret(value);
    }

    /** The transformation id {@code hh}: 0 none, 1 SHA-256, 2 SHA-384, 3 SHA-512. */
    public int transform() {
        return Integer.parseInt(value.substring(PREFIX.length(), PREFIX.length() + 2));
    }

    /** A secret for {@code key} (32, 48 or 64 bytes) with transformation {@code hh}: what nvme-cli's gen-dhchap-key prints. */
    public static DhchapSecret encode(int hh, byte[] key) {
        byte[] withCrc = new byte[key.length + 4];
        System.arraycopy(key, 0, withCrc, 0, key.length);
        long crc = crc(key, key.length);
        for (int i = 0; i < 4; i++) {
            withCrc[key.length + i] = (byte) (crc >>> (8 * i));
        }
        return new DhchapSecret(String.format("DHHC-1:%02d:%s:", hh, Base64.getEncoder().encodeToString(withCrc)));
    }

    @Override
    public String toString() {
        return "DHHC-1:<redacted>";
    }

    private static void check(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidValueException(field, "must not be empty");
        }
        if (value.length() > 128) {
            throw new InvalidValueException(field, "is longer than a DH-HMAC-CHAP secret can be (" + value.length() + " characters)");
        }
        Matcher m = FORMAT.matcher(value);
        if (!m.matches()) {
            throw new InvalidValueException(field, "must have the form DHHC-1:<00|01|02|03>:<base64>: (NVMe secret representation)");
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(m.group(2).getBytes(StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw new InvalidValueException(field, "its key part is not valid base64");
        }
        int keyLength = decoded.length - 4;
        if (keyLength != 32 && keyLength != 48 && keyLength != 64) {
            throw new InvalidValueException(field, "its key must be 32, 48 or 64 bytes followed by a CRC-32, is "
                    + decoded.length + " bytes in all");
        }
        long stored = 0;
        for (int i = 3; i >= 0; i--) {
            stored = (stored << 8) | (decoded[keyLength + i] & 0xff);
        }
        if (stored != crc(decoded, keyLength)) {
            throw new InvalidValueException(field, "its CRC-32 does not match its key (a damaged or mistyped secret)");
        }
    }

    private static long crc(byte[] bytes, int length) {
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, length);
        return crc.getValue();
    }
}
