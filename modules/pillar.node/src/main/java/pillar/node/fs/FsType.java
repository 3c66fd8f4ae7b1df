package pillar.node.fs;

import java.util.Arrays;
import java.util.stream.Collectors;

import pillar.api.value.InvalidValueException;

/**
 * The filesystems pillar-node creates and mounts. The allow-list: anything else in a volume
 * capability is INVALID_ARGUMENT before the host is touched.
 */
public enum FsType {
    EXT4("ext4", "mkfs.ext4"),
    XFS("xfs", "mkfs.xfs");

    /** The type a capability without {@code fs_type} gets (Kubernetes' own default is ext4 too). */
    public static final FsType DEFAULT = EXT4;

    private final String kernelName;
    private final String mkfs;

    FsType(String kernelName, String mkfs) {
        this.kernelName = kernelName;
        this.mkfs = mkfs;
    }

    /** The name the kernel, {@code blkid} and {@code /proc/self/mountinfo} use. */
    public String kernelName() {
        return kernelName;
    }

    String mkfsProgram() {
        return mkfs;
    }

    /** The type named in a capability; empty means {@link #DEFAULT}. */
    public static FsType parse(String name) {
        if (name == null || name.isEmpty()) {
            return DEFAULT;
        }
        for (FsType type : values()) {
            if (type.kernelName.equals(name)) {
                return type;
            }
        }
        throw new InvalidValueException("fs_type", "must be one of " + Arrays.stream(values())
                .map(FsType::kernelName).collect(Collectors.joining(", ")) + " (or empty for ext4)");
    }

    /** The type {@code blkid} reported, if it is one of ours. */
    public static java.util.Optional<FsType> ofKernelName(String name) {
        return Arrays.stream(values()).filter(t -> t.kernelName.equals(name)).findFirst();
    }

    @Override
    public String toString() {
        return kernelName;
    }
}
