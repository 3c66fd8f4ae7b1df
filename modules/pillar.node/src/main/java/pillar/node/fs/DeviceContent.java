package pillar.node.fs;

import java.util.Optional;

/**
 * What a low-level probe ({@code blkid -p}) found on a device: a filesystem type, a partition table
 * type, or nothing at all (blank).
 */
public record DeviceContent(Optional<String> type, Optional<String> partitionTable) {
    public static final DeviceContent BLANK = new DeviceContent(Optional.empty(), Optional.empty());

    /** Nothing recognisable: the only state in which mkfs may run. */
    public boolean blank() {
        return type.isEmpty() && partitionTable.isEmpty();
    }

    /** For messages: "ext4", "a dos partition table", "nothing". */
    public String describe() {
        if (type.isPresent()) {
            return type.get();
        }
        return partitionTable.map(p -> "a " + p + " partition table").orElse("nothing");
    }
}
