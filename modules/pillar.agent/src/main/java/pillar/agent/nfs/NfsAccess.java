package pillar.agent.nfs;

/**
 * What one NFS client may do with its export: read and write ({@code rw}) or only read ({@code ro}:
 * nfsd refuses its writes with EROFS, whatever options the client mounted with).
 */
public enum NfsAccess {
    READ_WRITE("rw"),
    READ_ONLY("ro");

    private final String option;

    NfsAccess(String option) {
        this.option = option;
    }

    /** {@code ro} when {@code readOnly}, else {@code rw}. */
    public static NfsAccess of(boolean readOnly) {
        return readOnly ? READ_ONLY : READ_WRITE;
    }

    /** The exportfs option: {@code rw} or {@code ro}. */
    public String option() {
        return option;
    }

    @Override
    public String toString() {
        return option;
    }
}
