package pillar.node.sys;

/**
 * What {@code statfs(2)} says about a mounted filesystem, in bytes and inodes. {@code used} counts
 * what is not free (including blocks reserved for root), {@code available} what an unprivileged
 * writer can still use, as {@code df} reports them.
 */
public record FsStats(long totalBytes, long availableBytes, long usedBytes,
                      long totalInodes, long freeInodes, long usedInodes) {
    public FsStats {
        if (totalBytes < 0 || availableBytes < 0 || usedBytes < 0 || totalInodes < 0 || freeInodes < 0
                || usedInodes < 0) {
            throw new IllegalArgumentException("filesystem statistics must not be negative");
        }
    }

    /**
     * From the fields of {@code struct statfs} (in units of the fragment size {@code f_frsize}).
     * Values the kernel reports as unsigned and that would overflow are clamped.
     */
    public static FsStats of(long frsize, long blocks, long bfree, long bavail, long files, long ffree) {
        long total = bytes(blocks, frsize);
        long free = bytes(bfree, frsize);
        long available = bytes(bavail, frsize);
        long filesClamped = Math.max(0, files);
        long freeInodes = Math.max(0, Math.min(ffree, filesClamped));
        return new FsStats(total, Math.min(available, total), Math.max(0, total - free),
                filesClamped, freeInodes, filesClamped - freeInodes);
    }

    private static long bytes(long units, long size) {
        if (units < 0 || size <= 0) {
            return 0;
        }
        try {
            return Math.multiplyExact(units, size);
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }
}
