package pillar.api.value;

/** A non-negative number of bytes, with the alignment arithmetic volume sizes need. */
public record ByteSize(long bytes) implements Comparable<ByteSize> {
    public static final long KIB = 1024L;
    public static final long MIB = 1024L * KIB;
    public static final long GIB = 1024L * MIB;

    public ByteSize {
        if (bytes < 0) {
            throw new InvalidValueException("bytes", "must not be negative, is " + bytes);
        }
    }

    public static ByteSize of(long bytes) {
        return new ByteSize(bytes);
    }

    public static ByteSize ofMiB(long mib) {
        return new ByteSize(Math.multiplyExact(mib, MIB));
    }

    public static ByteSize ofGiB(long gib) {
        return new ByteSize(Math.multiplyExact(gib, GIB));
    }

    /** The smallest multiple of {@code alignment} that is at least this size. */
    public ByteSize roundUpTo(long alignment) {
        if (alignment <= 0) {
            throw new InvalidValueException("alignment", "must be positive, is " + alignment);
        }
        long remainder = bytes % alignment;
        if (remainder == 0) {
            return this;
        }
        long rounded = bytes - remainder + alignment;
        if (rounded < 0) {
            throw new InvalidValueException("bytes", "is too large to round up to a multiple of " + alignment);
        }
        return new ByteSize(rounded);
    }

    public boolean isMultipleOf(long alignment) {
        return alignment > 0 && bytes % alignment == 0;
    }

    @Override
    public int compareTo(ByteSize other) {
        return Long.compare(bytes, other.bytes);
    }

    @Override
    public String toString() {
        if (bytes != 0 && bytes % GIB == 0) {
            return bytes / GIB + "GiB";
        }
        if (bytes != 0 && bytes % MIB == 0) {
            return bytes / MIB + "MiB";
        }
        return bytes + "B";
    }
}
