package pillar.node.nvme;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import pillar.runtime.keys.Keyring;

/**
 * The node's keyring for the fake initiator: a put under an identity replaces its key with a new serial, a
 * removed key is gone, as in the kernel ({@code KernelKeyringTlsKernelIT} holds the kernel's to that).
 * {@link #bySerial} is what the fake target's handshake reads.
 */
public final class FakeKeyring implements Keyring {
    private final AtomicInteger serials = new AtomicInteger(0x2000_0000);
    private final int serial = serials.incrementAndGet();
    private final Map<String, Integer> byIdentity = new ConcurrentHashMap<>();
    private final Map<Integer, byte[]> keys = new ConcurrentHashMap<>();

    @Override
    public int serial() {
        return serial;
    }

    @Override
    public int put(String identity, byte[] psk) {
        int key = serials.incrementAndGet();
        keys.put(key, psk.clone());
        Integer old = byIdentity.put(identity, key);
        if (old != null) {
            keys.remove(old);
        }
        return key;
    }

    @Override
    public OptionalInt find(String identity) {
        Integer key = byIdentity.get(identity);
        return key == null ? OptionalInt.empty() : OptionalInt.of(key);
    }

    @Override
    public void remove(String identity) {
        Integer key = byIdentity.remove(identity);
        if (key != null) {
            keys.remove(key);
        }
    }

    /** The key with that serial, if the keyring still holds it. */
    public Optional<byte[]> bySerial(int key) {
        return Optional.ofNullable(keys.get(key)).map(byte[]::clone);
    }

    /** How many keys it holds. */
    public int size() {
        return keys.size();
    }
}
