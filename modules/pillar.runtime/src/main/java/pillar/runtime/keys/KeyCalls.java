package pillar.runtime.keys;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Platform;

/**
 * {@code add_key(2)} and {@code keyctl(2)}, which the C library does not wrap, through its {@code syscall}.
 * A failing call throws {@link LastErrorException} carrying {@code errno}.
 */
final class KeyCalls {
    static final int KEY_SPEC_USER_KEYRING = -4;
    static final int KEYCTL_SETPERM = 5;
    static final int KEYCTL_DESCRIBE = 6;
    static final int KEYCTL_UNLINK = 9;
    static final int KEYCTL_SEARCH = 10;
    static final int KEYCTL_READ = 11;

    private static final long ADD_KEY;
    private static final long KEYCTL;

    static {
        if (Platform.isLinux() && Platform.is64Bit() && Platform.isIntel()) {
            ADD_KEY = 248;
            KEYCTL = 250;
        } else if (Platform.isLinux() && Platform.is64Bit() && Platform.isARM()) {
            ADD_KEY = 217;
            KEYCTL = 219;
        } else {
            ADD_KEY = -1;
            KEYCTL = -1;
        }
    }

    private interface LibC extends Library {
        long syscall(long number, Object... args) throws LastErrorException;
    }

    private static final class Holder {
        static final LibC LIBC = Native.load("c", LibC.class);
    }

    private KeyCalls() {
    }

    /** {@code add_key(type, description, payload, plen, keyring)}: the new (or updated) key's serial. */
    static int addKey(String type, String description, byte[] payload, int keyring) {
        return (int) libc().syscall(ADD_KEY, type, description, payload, (long) (payload == null ? 0 : payload.length),
                (long) keyring);
    }

    /** {@code keyctl(operation, a, b, c, d)} with integer arguments. */
    static long keyctl(int operation, long a, long b) {
        return libc().syscall(KEYCTL, (long) operation, a, b, 0L, 0L);
    }

    /** {@code keyctl(KEYCTL_SEARCH, keyring, type, description, 0)}: the serial found (ENOKEY: none). */
    static int search(int keyring, String type, String description) {
        return (int) libc().syscall(KEYCTL, (long) KEYCTL_SEARCH, (long) keyring, type, description, 0L);
    }

    /** The serials a keyring links ({@code KEYCTL_READ} on it: needs read permission on the keyring only). */
    static int[] linked(int keyring) {
        for (int size = 256; ; size *= 4) {
            Memory buffer = new Memory(size);
            long needed = libc().syscall(KEYCTL, (long) KEYCTL_READ, (long) keyring, buffer, (long) size, 0L);
            if (needed <= size) {
                return buffer.getIntArray(0, (int) (needed / 4));
            }
        }
    }

    /** {@code type;uid;gid;perm;description} of a key ({@code KEYCTL_DESCRIBE}: needs view permission only). */
    static String describe(int key) {
        for (int size = 512; ; size *= 4) {
            Memory buffer = new Memory(size);
            long needed = libc().syscall(KEYCTL, (long) KEYCTL_DESCRIBE, (long) key, buffer, (long) size, 0L);
            if (needed <= size) {
                return buffer.getString(0, "UTF-8");
            }
        }
    }

    private static LibC libc() {
        if (ADD_KEY < 0) {
            throw new KeyringException("the kernel's keyrings are used on 64-bit Linux on x86-64 and arm64 only, not on "
                    + Platform.ARCH);
        }
        return Holder.LIBC;
    }
}
