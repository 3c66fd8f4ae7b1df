package pillar.testkit;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import pillar.runtime.keys.Keyring;

/**
 * A {@link Keyring} in memory that behaves as the kernel's does for pillar-csi: a put under an identity
 * already there replaces that key with a new one (a new serial), a removed key is no longer found, and
 * serials are never reused, across keyrings too. {@code KeyringContract} holds it and the kernel's keyrings
 * to that. The agent's fake configfs has one as the target's {@code .nvme} keyring, the node's tests as the
 * host's; tests read what it holds by identity ({@link #psk}) or, as a handshake does, by serial ({@link #bySerial}).
 */
public final class FakeKeyring implements Keyring {
    private static final AtomicInteger SERIALS = new AtomicInteger(0x1000_0000);

    private final int serial = SERIALS.incrementAndGet();
    private final Map<String, Key> keys = new ConcurrentHashMap<>();

    private record Key(int serial, byte[] psk) {
    }

    @Override
    public int serial() {
        return serial;
    }

    @Override
    public int put(String identity, byte[] psk) {
        Key key = new Key(SERIALS.incrementAndGet(), psk.clone());
        keys.put(identity, key);
        return key.serial();
    }

    @Override
    public OptionalInt find(String identity) {
        Key key = keys.get(identity);
        return key == null ? OptionalInt.empty() : OptionalInt.of(key.serial());
    }

    @Override
    public void remove(String identity) {
        keys.remove(identity);
    }

    /** The key under {@code identity}, if there. */
    public Optional<byte[]> psk(String identity) {
        return Optional.ofNullable(keys.get(identity)).map(k -> k.psk().clone());
    }

    /** The key with that serial, if the keyring still holds it. */
    public Optional<byte[]> bySerial(int key) {
        return keys.values().stream().filter(k -> k.serial() == key).findFirst().map(k -> k.psk().clone());
    }

    /** The identities it holds. */
    public Set<String> identities() {
        return Set.copyOf(keys.keySet());
    }
}
