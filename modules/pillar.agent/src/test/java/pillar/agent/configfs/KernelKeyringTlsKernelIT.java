package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import pillar.runtime.keys.KernelKeyring;
import pillar.runtime.keys.Keyring;

/**
 * {@link KeyringContract} on the kernel's keyrings in the VM: the {@code .nvme} keyring the target's TLS
 * handshake searches (6.12: {@code dev/kernel-it --kernel 6.12}), and a keyring of pillar-csi's own, found
 * again by name. A *TlsKernelIT (run on 6.12 only): 6.1 has no nvme-keyring module.
 */
class KernelKeyringTlsKernelIT extends KeyringContract {
    private final Keyring keyring = KernelKeyring.nvme(Path.of("/proc/keys"));

    @Override
    Keyring keyring() {
        return keyring;
    }

    @Test
    void anOwnKeyringIsFoundAgainByName() {
        KernelKeyring first = KernelKeyring.own("pillar-csi-contract-ring");
        int key = first.put(IDENTITY, new byte[32]);
        KernelKeyring again = KernelKeyring.own("pillar-csi-contract-ring");
        assertThat(again.serial()).isEqualTo(first.serial());
        assertThat(again.find(IDENTITY)).hasValue(key);
        again.remove(IDENTITY);
    }
}
