package pillar.api.value;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.Base64;

import org.junit.jupiter.api.Test;

class TlsPskTest {
    private static final Nqn HOST = Nqn.of("nqn.2024-06.io.pillar-csi:node-a");
    private static final Nqn SUBSYSTEM = Nqn.of("nqn.2024-06.io.pillar-csi:vol-a");

    @Test
    void aGeneratedKeyIs32BytesAndItsIdentityNamesSha256TheHostAndTheSubsystem() {
        TlsPsk psk = TlsPsk.generate(new SecureRandom());
        assertThat(psk.bytes()).hasSize(32);
        assertThat(psk.identity(HOST, SUBSYSTEM))
                .isEqualTo("NVMe0R01 nqn.2024-06.io.pillar-csi:node-a nqn.2024-06.io.pillar-csi:vol-a");
        assertThat(TlsPsk.generate(new SecureRandom())).isNotEqualTo(psk);
    }

    @Test
    void a48ByteKeyNamesSha384() {
        TlsPsk psk = TlsPsk.of("psk", Base64.getEncoder().encodeToString(new byte[48]));
        assertThat(psk.identity(HOST, SUBSYSTEM)).startsWith("NVMe0R02 ");
    }

    @Test
    void malformedKeysAreRefusedWithoutShowingThem() {
        String secret = Base64.getEncoder().encodeToString(new byte[31]);
        assertThatThrownBy(() -> TlsPsk.of("publish_context.tlsPsk", secret)).isInstanceOf(InvalidValueException.class)
                .hasMessageContaining("publish_context.tlsPsk").hasMessageContaining("32 or 48").hasMessageNotContaining(secret);
        assertThatThrownBy(() -> TlsPsk.of("psk", "not base64!")).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> TlsPsk.of("psk", "")).isInstanceOf(InvalidValueException.class);
        assertThatThrownBy(() -> TlsPsk.of("psk", "A".repeat(65))).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void itNeverPrintsTheKey() {
        TlsPsk psk = TlsPsk.generate(new SecureRandom());
        assertThat(psk.toString()).doesNotContain(psk.value()).contains("redacted");
    }
}
