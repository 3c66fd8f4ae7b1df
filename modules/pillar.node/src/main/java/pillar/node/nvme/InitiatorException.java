package pillar.node.nvme;

/** The initiator could not connect, disconnect or rescan; the message says why and what to check. */
public final class InitiatorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InitiatorException(String message) {
        super(message);
    }

    public InitiatorException(String message, Throwable cause) {
        super(message, cause);
    }
}
