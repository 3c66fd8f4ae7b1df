package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import pillar.agent.configfs.PortAddress;
import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.api.value.VolumeId;
import pillar.runtime.keys.Keyring;
import pillar.runtime.keys.KeyringException;
import pillar.testkit.FakeKeyring;

/** The hosts' TLS keys of a record: one resolution of the keyring per call, none without keys. */
class HostTlsKeysTest {
    private static final Nqn A = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:0a000000-0000-4000-8000-00000000000a");
    private static final Nqn B = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:0b000000-0000-4000-8000-00000000000b");
    private static final Nqn C = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:0c000000-0000-4000-8000-00000000000c");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final FakeKeyring keyring = new FakeKeyring();
    private final AtomicInteger resolutions = new AtomicInteger();
    private final HostTlsKeys keys = new HostTlsKeys(counting(() -> keyring));

    private Supplier<Keyring> counting(Supplier<Keyring> resolve) {
        return () -> {
            resolutions.incrementAndGet();
            return resolve.get();
        };
    }

    private static ExportRecord record(Map<Nqn, TlsPsk> psks) {
        return new ExportRecord(VolumeId.of("pvc-keys"), "fast", Path.of("/dev/vg0/pvc-keys"), PortAddress.tcp("10.0.0.5", 4420, true),
                true, Set.of(A, B, C), false, Map.of(), psks);
    }

    @Test
    void eachCallResolvesTheKeyringOnceWhateverTheNumberOfHosts() {
        ExportRecord record = record(Map.of(A, TlsPsk.generate(RANDOM), B, TlsPsk.generate(RANDOM), C, TlsPsk.generate(RANDOM)));
        keys.put(record, record.psks());
        assertThat(resolutions).hasValue(1);
        assertThat(keyring.identities()).hasSize(3);

        keyring.remove(record.psks().get(B).identity(B, record.subsystem()));
        assertThat(keys.drift(record)).containsExactly("host " + B + ": its TLS key is not in the kernel's .nvme keyring");
        assertThat(resolutions).hasValue(2);

        keys.remove(record, record.psks());
        assertThat(resolutions).hasValue(3);
        assertThat(keyring.identities()).isEmpty();
    }

    @Test
    void noKeysNeedNoKeyring() {
        HostTlsKeys without = new HostTlsKeys(counting(() -> {
            throw new KeyringException("the kernel has no .nvme keyring");
        }));
        ExportRecord plaintext = new ExportRecord(VolumeId.of("pvc-plain"), "fast", Path.of("/dev/vg0/pvc-plain"),
                PortAddress.tcp("10.0.0.5", 4420), true, Set.of(A));
        without.put(plaintext, plaintext.psks());
        without.remove(plaintext, HostTlsKeys.of(plaintext, A));
        assertThat(without.drift(plaintext)).isEmpty();
        assertThat(resolutions).hasValue(0);
    }

    @Test
    void aKeyringThatCannotBeHadIsALinePerHostInTheDriftAndFailsAPut() {
        HostTlsKeys without = new HostTlsKeys(counting(() -> {
            throw new KeyringException("the kernel has no .nvme keyring");
        }));
        ExportRecord record = record(Map.of(A, TlsPsk.generate(RANDOM), C, TlsPsk.generate(RANDOM)));
        assertThat(without.drift(record)).containsExactlyInAnyOrder(
                "host " + A + ": its TLS key cannot be checked: the kernel has no .nvme keyring",
                "host " + C + ": its TLS key cannot be checked: the kernel has no .nvme keyring");
        assertThatThrownBy(() -> without.put(record, HostTlsKeys.of(record, A))).isInstanceOf(KeyringException.class);
        assertThat(resolutions).hasValue(2);
    }

    @Test
    void theKeyOfOneHostIsThatHostsAloneOrNone() {
        TlsPsk psk = TlsPsk.generate(RANDOM);
        ExportRecord record = record(Map.of(A, psk));
        assertThat(HostTlsKeys.of(record, A)).isEqualTo(Map.of(A, psk));
        assertThat(HostTlsKeys.of(record, B)).isEmpty();
    }
}
