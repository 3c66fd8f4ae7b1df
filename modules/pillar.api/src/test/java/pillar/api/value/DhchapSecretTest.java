package pillar.api.value;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Base64;

import org.junit.jupiter.api.Test;

class DhchapSecretTest {
    private static final byte[] KEY = new byte[32];

    static {
        Arrays.fill(KEY, (byte) 7);
    }

    @Test
    void anEncodedSecretIsValidAndKeepsItsTransform() {
        DhchapSecret secret = DhchapSecret.encode(1, KEY);
        assertThat(secret.value()).startsWith("DHHC-1:01:").endsWith(":");
        assertThat(DhchapSecret.of("host_key", secret.value())).isEqualTo(secret);
        assertThat(secret.transform()).isEqualTo(1);
        assertThat(DhchapSecret.encode(0, new byte[48]).transform()).isZero();
        assertThat(DhchapSecret.encode(3, new byte[64]).value()).startsWith("DHHC-1:03:");
    }

    @Test
    void theCrcIsZlibsCrc32LittleEndianAfterTheKey() {
        // CRC-32 of 32 zero bytes is 0x190A55AD (zlib crc32), stored AD 55 0A 19
        byte[] zeros = new byte[32];
        byte[] decoded = Base64.getDecoder().decode(DhchapSecret.encode(0, zeros).value().split(":")[2]);
        assertThat(Arrays.copyOfRange(decoded, 32, 36)).containsExactly(0xAD, 0x55, 0x0A, 0x19);
    }

    @Test
    void theSecretNeverAppearsInToStringOrAnError() {
        DhchapSecret secret = DhchapSecret.encode(2, KEY);
        assertThat(secret.toString()).doesNotContain(secret.value().substring(10, 30));
        String damaged = secret.value().substring(0, 12) + (secret.value().charAt(12) == 'A' ? 'B' : 'A')
                + secret.value().substring(13);
        assertThatThrownBy(() -> DhchapSecret.of("host_key", damaged)).isInstanceOf(InvalidValueException.class)
                .hasMessageStartingWith("host_key: ").hasMessageContaining("CRC-32")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(damaged.substring(10, 30)));
    }

    @Test
    void malformedSecretsAreRefusedWithTheRule() {
        String good = DhchapSecret.encode(0, KEY).value();
        String body = good.split(":")[2];
        assertRefused("", "must not be empty");
        assertRefused("DHHC-2:00:" + body + ":", "must have the form");
        assertRefused("DHHC-1:04:" + body + ":", "must have the form");
        assertRefused("DHHC-1:00:" + body, "must have the form");
        assertRefused("DHHC-1:00:" + body + ":,nqn=x", "must have the form");
        assertRefused("DHHC-1:00:" + Base64.getEncoder().encodeToString(new byte[20]) + ":", "32, 48 or 64 bytes");
        assertRefused("DHHC-1:00:A===:", "must have the form");
        assertRefused("DHHC-1:00:AAAAA:", "not valid base64");
        assertRefused("DHHC-1:00:" + "A".repeat(200) + ":", "longer than");
    }

    private static void assertRefused(String value, String rule) {
        assertThatThrownBy(() -> DhchapSecret.of("s", value)).isInstanceOf(InvalidValueException.class)
                .hasMessageContaining(rule);
    }
}
