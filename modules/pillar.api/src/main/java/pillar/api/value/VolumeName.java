package pillar.api.value;

/**
 * The name a CO gives CreateVolume (external-provisioner sends {@code pvc-<uid>}). It is the key of
 * name idempotency; pillar-csi derives the {@link VolumeId} from it and never uses it in a path.
 * Grammar: 1 to 128 characters of letters, digits, '.', '_' and '-', starting with a letter or digit.
 */
public record VolumeName(String value) {
    public static final int MAX_LENGTH = 128;

    public VolumeName {
        Grammar.check("name", value, 1, MAX_LENGTH, "A-Z, a-z, 0-9, '.', '_' and '-'",
                c -> Grammar.alnum(c) || c == '.' || c == '_' || c == '-');
        if (!Grammar.alnum(value.charAt(0))) {
            throw new InvalidValueException("name", "must start with a letter or digit");
        }
    }

    public static VolumeName of(String value) {
        return new VolumeName(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
