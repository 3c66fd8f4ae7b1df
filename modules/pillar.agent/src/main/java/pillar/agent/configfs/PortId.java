package pillar.agent.configfs;

import pillar.api.value.InvalidValueException;

/**
 * An nvmet port: the directory name under {@code nvmet/ports/}. The kernel parses it as an unsigned
 * 16-bit number ({@code kstrtou16}), so 0 to 65535; pillar-csi always writes it in decimal.
 */
public record PortId(int value) {
    public static final int MAX = 65_535;

    public PortId {
        if (value < 0 || value > MAX) {
            throw new InvalidValueException("port_id", "must be 0 to " + MAX + " (the kernel's u16), is " + value);
        }
    }

    public static PortId of(int value) {
        return new PortId(value);
    }

    /** The configfs directory name. */
    public String dirName() {
        return Integer.toString(value);
    }

    @Override
    public String toString() {
        return dirName();
    }
}
