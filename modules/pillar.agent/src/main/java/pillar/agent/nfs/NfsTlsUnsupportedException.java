package pillar.agent.nfs;

/** An export asked for RPC-with-TLS where this server cannot require it ({@link NfsServer#tlsProblem}); nothing changed. */
public final class NfsTlsUnsupportedException extends NfsServerException {
    private static final long serialVersionUID = 1L;

    public NfsTlsUnsupportedException(String message) {
        super(message);
    }
}
