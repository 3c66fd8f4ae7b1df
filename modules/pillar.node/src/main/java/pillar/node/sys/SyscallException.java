package pillar.node.sys;

/** A system call failed; carries the call, its subject and {@link Errno}. */
public final class SyscallException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final Errno errno;

    public SyscallException(String call, String subject, Errno errno) {
        super(call + " " + subject + ": " + errno.symbol());
        this.errno = errno;
    }

    public SyscallException(String call, String subject, Errno errno, String hint) {
        super(call + " " + subject + ": " + errno.symbol() + " (" + hint + ")");
        this.errno = errno;
    }

    public Errno errno() {
        return errno;
    }
}
