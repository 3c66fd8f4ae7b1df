package pillar.api.value;

/**
 * The CSI volume ID pillar-csi hands out. It becomes an LV name, a ZFS dataset name, a configfs
 * directory name and a file name, so its grammar is the strictest common one: an RFC 1123 label,
 * lower-case letters, digits and '-', 1 to 63 characters, starting and ending with a letter or digit.
 */
public record VolumeId(String value) {
    public static final int MAX_LENGTH = 63;

    public VolumeId {
        Grammar.check("volume_id", value, 1, MAX_LENGTH, "a-z, 0-9 and '-'",
                c -> Grammar.lowerAlnum(c) || c == '-');
        if (value.startsWith("-") || value.endsWith("-")) {
            throw new InvalidValueException("volume_id", "must start and end with a letter or digit");
        }
    }

    public static VolumeId of(String value) {
        return new VolumeId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
