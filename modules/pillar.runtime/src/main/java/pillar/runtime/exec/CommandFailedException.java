package pillar.runtime.exec;

/**
 * A command exited with a non-zero status, or did not finish before its deadline (then
 * {@link #timedOut()} is true and the exit code is -1). Carries what callers need to recognise a
 * tool's "not found" answer reliably: the exit code and stderr.
 */
public final class CommandFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Command command;
    private final int exitCode;
    private final String stderr;
    private final boolean timedOut;

    public CommandFailedException(Command command, int exitCode, String stderr, boolean timedOut) {
        super(describe(command, exitCode, stderr, timedOut));
        this.command = command;
        this.exitCode = exitCode;
        this.stderr = stderr;
        this.timedOut = timedOut;
    }

    public Command command() {
        return command;
    }

    public int exitCode() {
        return exitCode;
    }

    public String stderr() {
        return stderr;
    }

    public boolean timedOut() {
        return timedOut;
    }

    private static String describe(Command command, int exitCode, String stderr, boolean timedOut) {
        String what = timedOut ? "did not finish within " + command.timeout().toMillis() + " ms and was killed"
                : "exited with status " + exitCode;
        String err = stderr.strip();
        return command + " " + what + (err.isEmpty() ? "" : ": " + err);
    }
}
