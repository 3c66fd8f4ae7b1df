package pillar.runtime.keys;

/** The kernel refused a keyring operation, or has no keyring for TLS keys: the message says which and why. */
public final class KeyringException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KeyringException(String message) {
        super(message);
    }

    KeyringException(String message, Throwable cause) {
        super(message, cause);
    }
}
