package pillar.runtime.exec;

import java.time.Duration;
import java.util.List;

/**
 * A command as an argument list (never a shell string) with a deadline. Arguments are passed to the
 * program as they are: no word splitting, no globbing, no variable expansion.
 */
public record Command(List<String> argv, Duration timeout) {
    public Command {
        argv = List.copyOf(argv);
        if (argv.isEmpty() || argv.get(0).isEmpty()) {
            throw new IllegalArgumentException("a command needs a program");
        }
        for (String arg : argv) {
            if (arg.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("a command argument contains NUL");
            }
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a command needs a positive deadline");
        }
    }

    public static Command of(Duration timeout, String... argv) {
        return new Command(List.of(argv), timeout);
    }

    public String program() {
        return argv.get(0);
    }

    @Override
    public String toString() {
        return String.join(" ", argv);
    }
}
