package pillar.agent.nfs;

/** The NFS server did not do what was asked (exportfs failed or timed out, or its listing is unreadable); nothing is assumed done. */
public class NfsServerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NfsServerException(String message, Throwable cause) {
        super(message, cause);
    }

    public NfsServerException(String message) {
        super(message);
    }
}
