package pillar.node.stage;

/**
 * A stage record could not be read or written: a malformed file (hand-edited, or from another
 * version) or an I/O error. The message names the file; nothing is guessed from a bad record.
 */
public final class StageRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StageRecordException(String message) {
        super(message);
    }

    public StageRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
