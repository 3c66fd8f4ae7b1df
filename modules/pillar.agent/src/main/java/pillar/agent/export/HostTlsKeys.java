package pillar.agent.export;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.runtime.keys.Keyring;
import pillar.runtime.keys.KeyringException;

/**
 * The TLS keys of an export record's hosts in the keyring where the target's handshake finds them (the
 * kernel's {@code .nvme}), each under its PSK identity for the host and the record's subsystem. Every call
 * resolves the keyring once, whatever the number of hosts (a resolution reads {@code /proc/keys}), and not
 * at all for no keys: a kernel without the keyring fails only the records that hold keys. Never logs a key.
 */
final class HostTlsKeys {
    private final Supplier<Keyring> keyring;

    /** {@code keyring} resolves the keyring, or throws {@link KeyringException} when the kernel has none. */
    HostTlsKeys(Supplier<Keyring> keyring) {
        this.keyring = keyring;
    }

    /** Puts each key; {@link KeyringException} when the keyring cannot be had or refuses one. */
    void put(ExportRecord record, Map<Nqn, TlsPsk> psks) {
        if (!psks.isEmpty()) {
            Keyring keys = keyring.get();
            psks.forEach((host, psk) -> keys.put(psk.identity(host, record.subsystem()), psk.bytes()));
        }
    }

    /** Invalidates each key: no new handshake of it succeeds. Nothing for a key that is not there. */
    void remove(ExportRecord record, Map<Nqn, TlsPsk> psks) {
        if (!psks.isEmpty()) {
            Keyring keys = keyring.get();
            psks.forEach((host, psk) -> keys.remove(psk.identity(host, record.subsystem())));
        }
    }

    /**
     * A line per host of the record whose key the keyring lacks, or where it cannot be checked (the keyring
     * cannot be had, or a look-up fails); empty when every key is there.
     */
    List<String> drift(ExportRecord record) {
        if (record.psks().isEmpty()) {
            return List.of();
        }
        Keyring keys;
        try {
            keys = keyring.get();
        } catch (KeyringException e) {
            return record.psks().keySet().stream().map(host -> unchecked(host, e)).toList();
        }
        List<String> drift = new ArrayList<>();
        record.psks().forEach((host, psk) -> {
            try {
                if (keys.find(psk.identity(host, record.subsystem())).isEmpty()) {
                    drift.add("host " + host + ": its TLS key is not in the kernel's .nvme keyring");
                }
            } catch (KeyringException e) {
                drift.add(unchecked(host, e));
            }
        });
        return drift;
    }

    /** The record's key of {@code host} alone; empty when it holds none for the host. */
    static Map<Nqn, TlsPsk> of(ExportRecord record, Nqn host) {
        TlsPsk psk = record.psks().get(host);
        return psk == null ? Map.of() : Map.of(host, psk);
    }

    private static String unchecked(Nqn host, KeyringException e) {
        return "host " + host + ": its TLS key cannot be checked: " + e.getMessage();
    }
}
