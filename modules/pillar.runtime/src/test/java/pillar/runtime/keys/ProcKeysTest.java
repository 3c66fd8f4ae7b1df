package pillar.runtime.keys;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcKeysTest {
    /** Lines as the 6.12 kernel in the VM listed them, a psk identity with spaces among them. */
    private static final String LISTING = """
            01b6ef38 I--Q---     1 perm 3f030000     0     0 keyring   _ses: 1
            042eccea I------     3 perm 1f1f0000     0     0 keyring   .nvme: 1
            09e27674 I--Q---     1 perm 3b010000     0     0 psk       NVMe0R01 nqn.2024-06.io.pillar-csi:node-a nqn.2024-06.io.pillar-csi:vol-a: 32
            0bbff983 I------     1 perm 0f0b0000     0     0 keyring   .nvme-other: empty
            """;

    @Test
    void findsTheKeyringByItsExactDescription() {
        assertThat(ProcKeys.keyring(LISTING, ".nvme")).hasValue(0x042eccea);
    }

    @Test
    void aKeyOfAnotherTypeOrAnotherNameIsNotIt() {
        assertThat(ProcKeys.keyring(LISTING, "NVMe0R01")).isEmpty();
        assertThat(ProcKeys.keyring(LISTING, ".nvm")).isEmpty();
        assertThat(ProcKeys.keyring("", ".nvme")).isEmpty();
    }

    @Test
    void aSerialAboveTheSignedRangeIsRead() {
        assertThat(ProcKeys.keyring("ffffff01 I------     3 perm 1f1f0000     0     0 keyring   .nvme: 1\n", ".nvme"))
                .hasValue(0xffffff01);
    }
}
