package pillar.agent.configfs;

import pillar.api.value.InvalidValueException;

/**
 * An NVMe namespace ID: the directory name under {@code subsystems/<nqn>/namespaces/}. The NVMe base
 * specification reserves 0 (never a valid namespace) and 0xFFFFFFFF (all namespaces); the kernel
 * refuses both, so 1 to 4294967294.
 */
public record NamespaceId(long value) {
    public static final long MAX = 0xFFFF_FFFEL;

    public NamespaceId {
        if (value < 1 || value > MAX) {
            throw new InvalidValueException("nsid",
                    "must be 1 to " + MAX + " (0 and 0xFFFFFFFF are reserved by the NVMe specification), is " + value);
        }
    }

    public static NamespaceId of(long value) {
        return new NamespaceId(value);
    }

    /** The configfs directory name. */
    public String dirName() {
        return Long.toString(value);
    }

    @Override
    public String toString() {
        return dirName();
    }
}
