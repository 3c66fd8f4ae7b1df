package pillar.runtime.durable;

/**
 * A durable record exists but cannot be read (truncated, not its format, another volume's): never taken
 * for "no record". What it concerns is refused until an operator restores or removes the file.
 */
public class DamagedRecordException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public DamagedRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
