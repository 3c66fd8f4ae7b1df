package pillar.api.value;

/**
 * The CSI snapshot ID pillar-csi hands out. Like a {@link VolumeId} it becomes an LV name, a ZFS
 * snapshot name and a file name, so it has the same grammar: an RFC 1123 label, lower-case letters,
 * digits and '-', 1 to 63 characters, starting and ending with a letter or digit. external-snapshotter's
 * names ({@code snapshot-<uid>}) are valid snapshot IDs as they are.
 */
public record SnapshotId(String value) {
    public static final int MAX_LENGTH = VolumeId.MAX_LENGTH;

    public SnapshotId {
        Grammar.check("snapshot_id", value, 1, MAX_LENGTH, "a-z, 0-9 and '-'",
                c -> Grammar.lowerAlnum(c) || c == '-');
        if (value.startsWith("-") || value.endsWith("-")) {
            throw new InvalidValueException("snapshot_id", "must start and end with a letter or digit");
        }
    }

    public static SnapshotId of(String value) {
        return new SnapshotId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
