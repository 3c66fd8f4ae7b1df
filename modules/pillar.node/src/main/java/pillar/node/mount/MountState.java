package pillar.node.mount;

/** What a probe of a path finds. */
public enum MountState {
    /** Nothing is mounted there. */
    NOT_MOUNTED,
    /** A mount is there and answers. */
    MOUNTED,
    /**
     * A mount is there but broken: a {@code stat} of the path fails with EIO, ENOTCONN, ESTALE or
     * EACCES (see {@link pillar.node.sys.Errno#meansCorruptedMount()}). It counts as mounted.
     */
    CORRUPTED;

    /** Mounted, healthy or not. */
    public boolean isMounted() {
        return this != NOT_MOUNTED;
    }
}
