package pillar.controller.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;

/**
 * The kernel's secret representation (nvme_auth_extract_key): {@code DHHC-1:00:}, base64 of the key
 * and its CRC-32 (the standard one, ~crc32(~0)) little-endian, a closing colon; 32, 48 or 64 bytes.
 */
class DhchapKeyTest {
    @Test
    void aKnownKeyHasTheKernelsForm() {
        byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) i;
        }
        // computed outside Java: base64(key + struct.pack('<I', zlib.crc32(key)))
        assertThat(DhchapKey.format(key)).isEqualTo("DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:");
        // crc32 of 32 zero bytes is 0x190a55ad, stored ad 55 0a 19
        assertThat(DhchapKey.format(new byte[32])).isEqualTo("DHHC-1:00:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACtVQoZ:");
    }

    @Test
    void aGeneratedSecretIs32RandomBytesTheKernelWouldAccept() {
        SecureRandom random = new SecureRandom();
        String one = DhchapKey.generate(random);
        String two = DhchapKey.generate(random);
        assertThat(one).isNotEqualTo(two).startsWith("DHHC-1:00:").endsWith(":");
        for (String secret : new String[] {one, two}) {
            byte[] payload = Base64.getDecoder().decode(secret.substring(10, secret.length() - 1));
            assertThat(payload).hasSize(36);
            CRC32 crc = new CRC32();
            crc.update(payload, 0, 32);
            assertThat(ByteBuffer.wrap(payload, 32, 4).order(ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo((int) crc.getValue());
            assertThat(DhchapKey.isWellFormed(secret)).isTrue();
        }
    }

    @Test
    void onlyWellFormedSecretsPass() {
        String good = DhchapKey.format(new byte[48]);
        assertThat(DhchapKey.isWellFormed(good)).isTrue();
        assertThat(DhchapKey.isWellFormed(DhchapKey.format(new byte[64]))).isTrue();
        String flipped = "DHHC-1:00:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACtVQoa:";
        for (String bad : new String[] {null, "", good.replace("DHHC-1:00:", "DHHC-1:04:"), good.substring(0, good.length() - 1),
                flipped, "DHHC-1:00:" + Base64.getEncoder().encodeToString(new byte[20]) + ":", "DHHC-1:00:!!!!:"}) {
            assertThat(DhchapKey.isWellFormed(bad)).as(String.valueOf(bad)).isFalse();
        }
        assertThatThrownBy(() -> DhchapKey.format(new byte[16])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void hostSecretsNeverPrintTheirValues() {
        SecureRandom random = new SecureRandom();
        HostSecrets secrets = new HostSecrets(DhchapKey.generate(random), DhchapKey.generate(random));
        assertThat(secrets.toString()).doesNotContain(secrets.hostKey()).doesNotContain(secrets.controllerKey())
                .doesNotContain("DHHC");
        assertThat(secrets.toProto().getHash()).isEqualTo("hmac(sha256)");
        assertThat(secrets.toProto().getDhGroup()).isEqualTo("ffdhe2048");
        assertThatThrownBy(() -> new HostSecrets("DHHC-1:00:x:", secrets.controllerKey()))
                .isInstanceOf(IllegalArgumentException.class).message().doesNotContain(secrets.controllerKey());
    }
}
