package pillar.runtime.keys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;

import com.sun.jna.LastErrorException;

/**
 * A keyring of the running kernel. Its keys are found by listing the keyring and describing each key, and
 * removed by unlinking them, which need only view permission on a key: a key put into the kernel's
 * {@code .nvme} keyring is not possessed by the process that put it (that keyring is in none of its own), so
 * searching for it or changing its permissions is refused. {@code tlshd} links the keyring a handshake names
 * into its session and so possesses its keys. Stateless but for the serial: every call asks the kernel.
 */
public final class KernelKeyring implements Keyring {
    /** Possessor: everything; the owning user (uid 0): view, read, search and link, so {@code tlshd} links it. */
    static final long KEYRING_PERMISSIONS = 0x3f1b0000L;
    static final String NVME = ".nvme";
    private static final String PSK = "psk";
    private static final int ENOKEY = 126;
    private static final int ENOENT = 2;

    private final int serial;
    private final String name;

    private KernelKeyring(int serial, String name) {
        this.serial = serial;
        this.name = name;
    }

    /**
     * The kernel's own {@code .nvme} keyring, where the target's TLS handshake looks a host's identity up,
     * as {@code procKeys} ({@code /proc/keys}) lists it; {@link KeyringException} when there is none (a kernel
     * without NVMe/TCP TLS, or its {@code nvme-keyring} module not loaded).
     */
    public static KernelKeyring nvme(Path procKeys) {
        String listing;
        try {
            listing = Files.readString(procKeys, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new KeyringException("cannot read " + procKeys + " to find the kernel's .nvme keyring: " + e.getMessage(), e);
        }
        return new KernelKeyring(ProcKeys.keyring(listing, NVME).orElseThrow(() -> new KeyringException(
                "the kernel has no .nvme keyring: NVMe/TCP TLS needs a kernel of 6.7 or newer built with CONFIG_NVME_KEYRING"
                        + " and CONFIG_NVME_TCP_TLS or CONFIG_NVME_TARGET_TCP_TLS, with its nvme-keyring module loaded")), NVME);
    }

    /**
     * A keyring of pillar-csi's own named {@code name} in uid 0's user keyring, made when it is not there.
     * The user keyring lives as long as a process of uid 0 does (always, on a running host), so the keys in
     * it outlive the process that put them, as a connected controller needs for its reconnects.
     */
    public static KernelKeyring own(String name) {
        try {
            return new KernelKeyring(KeyCalls.search(KeyCalls.KEY_SPEC_USER_KEYRING, "keyring", name), name);
        } catch (LastErrorException e) {
            if (e.getErrorCode() != ENOKEY) {
                throw new KeyringException("cannot search uid 0's user keyring for keyring " + name + ": errno " + e.getErrorCode(), e);
            }
        }
        try {
            int made = KeyCalls.addKey("keyring", name, null, KeyCalls.KEY_SPEC_USER_KEYRING);
            KeyCalls.keyctl(KeyCalls.KEYCTL_SETPERM, made, KEYRING_PERMISSIONS);
            return new KernelKeyring(made, name);
        } catch (LastErrorException e) {
            throw new KeyringException("cannot make keyring " + name + " in uid 0's user keyring: errno " + e.getErrorCode(), e);
        }
    }

    @Override
    public int serial() {
        return serial;
    }

    @Override
    public int put(String identity, byte[] psk) {
        try {
            return KeyCalls.addKey(PSK, identity, psk, serial);
        } catch (LastErrorException e) {
            throw new KeyringException("cannot put the TLS key of '" + identity + "' into keyring " + name + ": errno "
                    + e.getErrorCode() + (e.getErrorCode() == 19 ? " (ENODEV: the kernel has no key type psk; load nvme-keyring)" : ""), e);
        }
    }

    @Override
    public OptionalInt find(String identity) {
        int[] found = matching(identity);
        return found.length == 0 ? OptionalInt.empty() : OptionalInt.of(found[found.length - 1]);
    }

    @Override
    public void remove(String identity) {
        for (int key : matching(identity)) {
            try {
                KeyCalls.keyctl(KeyCalls.KEYCTL_UNLINK, key, serial);
            } catch (LastErrorException e) {
                if (e.getErrorCode() != ENOENT && e.getErrorCode() != ENOKEY) {
                    throw new KeyringException("cannot unlink the TLS key of '" + identity + "' from keyring " + name
                            + ": errno " + e.getErrorCode(), e);
                }
            }
        }
    }

    /** The serials of the {@code psk} keys this keyring links under {@code identity}. */
    private int[] matching(String identity) {
        int[] linked;
        try {
            linked = KeyCalls.linked(serial);
        } catch (LastErrorException e) {
            throw new KeyringException("cannot list keyring " + name + ": errno " + e.getErrorCode(), e);
        }
        return java.util.Arrays.stream(linked).filter(key -> isPsk(key, identity)).toArray();
    }

    private static boolean isPsk(int key, String identity) {
        String description;
        try {
            description = KeyCalls.describe(key);
        } catch (LastErrorException e) {
            return false; // gone meanwhile, or not ours to view
        }
        String[] fields = description.split(";", 5);
        return fields.length == 5 && fields[0].equals(PSK) && fields[4].equals(identity);
    }

    @Override
    public String toString() {
        return "keyring " + name + " (" + serial + ")";
    }
}
