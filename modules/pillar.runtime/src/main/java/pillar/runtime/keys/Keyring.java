package pillar.runtime.keys;

import java.util.OptionalInt;

/**
 * A keyring of TLS pre-shared keys (key type {@code psk}), each under its PSK identity. Keys live in
 * kernel memory only: lost at a reboot, kept across a restart of the process that put them.
 *
 * <p>Every operation states the end it reaches: putting a key that is there replaces it, removing one
 * that is absent succeeds. Failures throw {@link KeyringException} naming the identity, never the key.
 */
public interface Keyring {
    /** The keyring's serial: what the fabrics option {@code keyring=} names. */
    int serial();

    /** Puts {@code psk} under {@code identity}, replacing a key of that identity; answers the key's serial. */
    int put(String identity, byte[] psk);

    /** The serial of the key under {@code identity} in this keyring, if there. */
    OptionalInt find(String identity);

    /** Invalidates the key under {@code identity}: no handshake can use it afterwards. Nothing when absent. */
    void remove(String identity);
}
