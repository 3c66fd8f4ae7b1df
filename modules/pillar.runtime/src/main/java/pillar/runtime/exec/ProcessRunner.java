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

    /**
     * Runs {@code first | second} with every byte passing through this process, so that the pipe ends
     * when this process dies (the first gets a broken pipe, the second the end of its input) and can be
     * ended at any moment: once {@code flow} says {@link Flow#stopped()}, the first is killed and the
     * second's input closed. There is no overall deadline: {@code first}'s timeout bounds how long no byte
     * moves (both killed past it, a timed-out failure), {@code second}'s how long the second takes to exit
     * after its input ended. A stopped relay returns whatever the exit statuses; otherwise it fails like
     * {@link #pipe}.
     *
     * @return how many bytes passed, and whether it was stopped
     */
    default Relayed relay(Command first, Command second, Flow flow) {
        throw new UnsupportedOperationException("this runner cannot relay " + first + " | " + second);
    }

    /** What a {@link #relay} reports to and asks of its caller, from the relaying thread and a watchdog. */
    interface Flow {
        /** Whether to end the pipe now. */
        boolean stopped();

        /** {@code bytes} have passed so far. */
        void passed(long bytes);
    }

    /** How a {@link #relay} ended: the bytes that passed; {@code stopped} when its {@link Flow} ended it. */
    record Relayed(long bytes, boolean stopped) {
    }
}
