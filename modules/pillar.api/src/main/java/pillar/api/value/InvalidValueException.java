package pillar.api.value;

/**
 * An identifier or size failed its grammar. Callers answer the request with INVALID_ARGUMENT and
 * change nothing; the message names the field and the rule, never echoing control characters.
 */
public final class InvalidValueException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidValueException(String field, String rule) {
        super(field + ": " + rule);
        this.field = field;
    }

    /** The name of the field that was rejected, e.g. {@code volume_id}. */
    public String field() {
        return field;
    }
}
