package pillar.runtime.keys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;

import com.sun.jna.LastErrorException;

/**
 * A keyring of the running kernel. Its keys are readable by uid 0 without possessing them (the user
 * permission bits, not only the possessor's), so {@code tlshd}, a root daemon, reads the key a connect
 * names by serial. Stateless but for the serial: every call asks the kernel.
 */
public final class KernelKeyring implements Keyring {
    /** Possessor: everything; the owning user (uid 0): view, read, search. Nobody else. */
    static final long KEY_PERMISSIONS = 0x3f0b0000L;
    /** The same, and link for the keyring: {@code tlshd} links it into its session to search it. */
    static final long KEYRING_PERMISSIONS = 0x3f1b0000L;
    static final String NVME = ".nvme";
    private static final String PSK = "psk";
    private static final int ENOKEY = 126;
    private static final int EKEYEXPIRED = 127;
    private static final int EKEYREVOKED = 128;

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
            int key = KeyCalls.addKey(PSK, identity, psk, serial);
            KeyCalls.keyctl(KeyCalls.KEYCTL_SETPERM, key, KEY_PERMISSIONS);
            return key;
        } catch (LastErrorException e) {
            throw new KeyringException("cannot put the TLS key of '" + identity + "' into keyring " + name + ": errno "
                    + e.getErrorCode() + (e.getErrorCode() == 19 ? " (ENODEV: the kernel has no key type psk; load nvme-keyring)" : ""), e);
        }
    }

    @Override
    public OptionalInt find(String identity) {
        try {
            return OptionalInt.of(KeyCalls.search(serial, PSK, identity));
        } catch (LastErrorException e) {
            int errno = e.getErrorCode();
            if (errno == ENOKEY || errno == EKEYEXPIRED || errno == EKEYREVOKED) {
                return OptionalInt.empty();
            }
            throw new KeyringException("cannot search keyring " + name + " for '" + identity + "': errno " + errno, e);
        }
    }

    @Override
    public void remove(String identity) {
        OptionalInt key = find(identity);
        if (key.isEmpty()) {
            return;
        }
        try {
            KeyCalls.keyctl(KeyCalls.KEYCTL_INVALIDATE, key.getAsInt(), 0);
        } catch (LastErrorException e) {
            if (e.getErrorCode() != ENOKEY && e.getErrorCode() != EKEYREVOKED) {
                throw new KeyringException("cannot invalidate the TLS key of '" + identity + "' in keyring " + name
                        + ": errno " + e.getErrorCode(), e);
            }
        }
    }

    @Override
    public String toString() {
        return "keyring " + name + " (" + serial + ")";
    }
}
