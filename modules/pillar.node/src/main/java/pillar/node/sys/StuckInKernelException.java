package pillar.node.sys;

/**
 * Kernel work did not return within its deadline ({@link #stillStuck()} false: the CSI call answers
 * DEADLINE_EXCEEDED, the work may still finish), or was not started because an earlier attempt on the
 * same object is still stuck ({@link #stillStuck()} true: ABORTED, the CSI spec's "operation pending").
 */
public final class StuckInKernelException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean stillStuck;

    public StuckInKernelException(String message, boolean stillStuck) {
        super(message);
        this.stillStuck = stillStuck;
    }

    /** True when nothing was started because an earlier attempt has not returned from the kernel. */
    public boolean stillStuck() {
        return stillStuck;
    }
}
