package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import pillar.runtime.keys.Keyring;

/**
 * What pillar-csi relies on of a {@link Keyring}: a key put is found under its identity, a put under the
 * same identity replaces it, a removed key is not found, and removing an absent key succeeds.
 * {@link FakeKeyringTest} runs it on the tests' fake ({@code pillar.testkit.FakeKeyring}),
 * {@code KernelKeyringTlsKernelIT} on the kernel's keyrings.
 */
abstract class KeyringContract {
    static final String IDENTITY = "NVMe0R01 nqn.2024-06.io.pillar-csi:contract-host nqn.2024-06.io.pillar-csi:contract-vol";
    static final String OTHER = "NVMe0R01 nqn.2024-06.io.pillar-csi:contract-other nqn.2024-06.io.pillar-csi:contract-vol";

    abstract Keyring keyring();

    @AfterEach
    void removeWhatTheTestPut() {
        keyring().remove(IDENTITY);
        keyring().remove(OTHER);
    }

    @Test
    void aPutKeyIsFoundUnderItsIdentityOnly() {
        int serial = keyring().put(IDENTITY, new byte[32]);
        assertThat(keyring().find(IDENTITY)).hasValue(serial);
        assertThat(keyring().find(OTHER)).isEmpty();
    }

    @Test
    void aSecondPutReplacesTheFirst() {
        keyring().put(IDENTITY, new byte[32]);
        int second = keyring().put(IDENTITY, filled(32, 7));
        assertThat(keyring().find(IDENTITY)).hasValue(second);
    }

    @Test
    void aRemovedKeyIsGoneAndRemovingAgainSucceeds() {
        keyring().put(IDENTITY, new byte[32]);
        keyring().put(OTHER, new byte[32]);
        keyring().remove(IDENTITY);
        assertThat(keyring().find(IDENTITY)).isEmpty();
        assertThat(keyring().find(OTHER)).isPresent();
        keyring().remove(IDENTITY);
    }

    static byte[] filled(int length, int value) {
        byte[] bytes = new byte[length];
        java.util.Arrays.fill(bytes, (byte) value);
        return bytes;
    }
}
