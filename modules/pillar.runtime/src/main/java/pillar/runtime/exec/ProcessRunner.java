package pillar.runtime.exec;

/**
 * Runs commands on the host. The port every zfs, lvm, mkfs, blkid and resize call goes through.
 *
 * <p>Contract: the command runs with {@code LC_ALL=C} so output is parseable; it is killed, with its
 * children, when its deadline passes; status 0 returns what it printed; anything else throws
 * {@link CommandFailedException} with the exit code and stderr.
 */
public interface ProcessRunner {
    CommandResult run(Command command);

    /**
     * Runs {@code first | second} without a shell: {@code first}'s stdout feeds {@code second}'s stdin,
     * both killed at the earlier of their deadlines. Succeeds only when both exit 0; otherwise throws
     * {@link CommandFailedException} for the first of them that failed (or timed out). Returns
     * {@code second}'s output.
     */
    default CommandResult pipe(Command first, Command second) {
        throw new UnsupportedOperationException("this runner cannot run " + first + " | " + second);
    }
}
