package pillar.controller.volume.request;

import pillar.api.csi.v1.CapacityRange;
import pillar.runtime.server.CsiException;
import pillar.api.value.ByteSize;

/**
 * Volume sizes from a CSI capacity range: multiples of 4 MiB (the LVM extent, and a multiple of
 * every zvol volblocksize), 1 GiB when the CO leaves the size to the plugin, at most 1 PiB.
 * Negative values are INVALID_ARGUMENT; a range no such size fits is OUT_OF_RANGE.
 */
public final class Sizes {
    public static final long ALIGNMENT = 4 * ByteSize.MIB;
    static final long DEFAULT = ByteSize.GIB;
    static final long MAX = 1L << 50;

    private Sizes() {
    }

    /** The size to create for a CreateVolume range. */
    public static ByteSize forCreate(CapacityRange range) {
        long required = range.getRequiredBytes();
        long limit = range.getLimitBytes();
        checkSigns(required, limit);
        if (required == 0 && limit == 0) {
            return ByteSize.of(DEFAULT);
        }
        if (required == 0) {
            // only a limit: the largest aligned size up to it, and never more than the default
            long size = Math.min(limit - limit % ALIGNMENT, DEFAULT);
            if (size == 0) {
                throw CsiException.outOfRange("capacity_range.limit_bytes " + limit + " is below the smallest volume, "
                        + ALIGNMENT + " bytes");
            }
            return ByteSize.of(size);
        }
        return fit(required, limit);
    }

    /**
     * The size to create for a restore or clone of a source of {@code sourceBytes}: the range's size,
     * and the source's when the range asks for none; a range whose size would be smaller than the
     * source (required or limit below it) is OUT_OF_RANGE: a copy never truncates its source.
     */
    public static ByteSize forSource(CapacityRange range, long sourceBytes) {
        long required = range.getRequiredBytes();
        long limit = range.getLimitBytes();
        checkSigns(required, limit);
        if (limit != 0 && limit < sourceBytes) {
            throw CsiException.outOfRange("capacity_range.limit_bytes " + limit + " is below the source's size, "
                    + sourceBytes + " bytes");
        }
        if (required != 0 && required < sourceBytes) {
            throw CsiException.outOfRange("capacity_range.required_bytes " + required + " is below the source's size, "
                    + sourceBytes + " bytes: a restore or clone is at least as large as its source");
        }
        return fit(Math.max(required, sourceBytes), limit);
    }

    /** The size to grow to for a ControllerExpandVolume range (required_bytes must be set). */
    public static ByteSize forExpand(CapacityRange range) {
        long required = range.getRequiredBytes();
        long limit = range.getLimitBytes();
        checkSigns(required, limit);
        if (required == 0) {
            throw CsiException.invalid("capacity_range.required_bytes is required to expand a volume");
        }
        return fit(required, limit);
    }

    /** Whether an existing size satisfies the range: at least required, at most the limit if any. */
    public static boolean satisfies(long size, CapacityRange range) {
        return size >= range.getRequiredBytes() && (range.getLimitBytes() == 0 || size <= range.getLimitBytes());
    }

    private static ByteSize fit(long required, long limit) {
        if (limit != 0 && limit < required) {
            throw CsiException.outOfRange("capacity_range.limit_bytes " + limit + " is below required_bytes " + required);
        }
        if (required > MAX) {
            throw CsiException.outOfRange("capacity_range.required_bytes " + required + " is above the largest volume, "
                    + MAX + " bytes (1 PiB)");
        }
        long size = ByteSize.of(required).roundUpTo(ALIGNMENT).bytes();
        if (limit != 0 && size > limit) {
            throw CsiException.outOfRange("no multiple of " + ALIGNMENT + " bytes (4 MiB) lies between required_bytes "
                    + required + " and limit_bytes " + limit);
        }
        return ByteSize.of(size);
    }

    private static void checkSigns(long required, long limit) {
        if (required < 0 || limit < 0) {
            throw CsiException.invalid("capacity_range: required_bytes and limit_bytes must not be negative");
        }
    }
}
