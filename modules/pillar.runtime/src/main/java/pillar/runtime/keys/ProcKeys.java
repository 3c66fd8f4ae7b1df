package pillar.runtime.keys;

import java.util.OptionalInt;

/**
 * The kernel's {@code /proc/keys}: one key a line, {@code <serial hex> <flags> <usage> <expiry> <perm> <uid>
 * <gid> <type> <description>: <summary>}, the keys the reader may view.
 */
final class ProcKeys {
    private ProcKeys() {
    }

    /** The serial of the keyring described exactly {@code description} in {@code listing}, if listed. */
    static OptionalInt keyring(String listing, String description) {
        for (String line : listing.split("\n")) {
            String[] fields = line.trim().split("\\s+", 9);
            if (fields.length == 9 && fields[7].equals("keyring") && fields[8].startsWith(description + ":")) {
                try {
                    return OptionalInt.of(Integer.parseUnsignedInt(fields[0], 16));
                } catch (NumberFormatException e) {
                    // not a key line
                }
            }
        }
        return OptionalInt.empty();
    }
}
