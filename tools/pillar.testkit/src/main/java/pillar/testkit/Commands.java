package pillar.testkit;

import java.time.Duration;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.SystemProcessRunner;

/** A test's commands on its host (the VM guest in the kernel tier): argument lists, 30 s each at most. */
public final class Commands {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();

    private Commands() {
    }

    /** Runs {@code argv}; a failure or the deadline is {@link CommandFailedException}. */
    public static void run(String... argv) {
        RUNNER.run(Command.of(DEADLINE, argv));
    }

    /** Whether {@code argv} exits 0 within the deadline. */
    public static boolean succeeds(String... argv) {
        try {
            run(argv);
            return true;
        } catch (CommandFailedException failed) {
            return false;
        }
    }
}
