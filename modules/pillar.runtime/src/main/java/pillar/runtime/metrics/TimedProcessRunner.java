package pillar.runtime.metrics;

import java.util.Set;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/**
 * A {@link ProcessRunner} that times every command it runs into a histogram labelled
 * {@code command} and {@code outcome} ({@code ok}, {@code failed}, {@code timeout}). The command label
 * is the program's file name, with the subcommand for the tools that have them ({@code zfs create},
 * {@code zpool list}); never an argument that names a volume or a device. A pipe is timed once, as
 * {@code first|second}.
 */
public final class TimedProcessRunner implements ProcessRunner {
    /** Tools whose first argument is a subcommand, a closed set of words. */
    private static final Set<String> WITH_SUBCOMMANDS = Set.of("zfs", "zpool", "lvm", "nvme", "dmsetup");

    private final ProcessRunner delegate;
    private final OutcomeTimer timer;

    /** Times into {@code pillar_WORKLOAD_command_seconds}. */
    public TimedProcessRunner(ProcessRunner delegate, WorkloadMetrics metrics) {
        this.delegate = delegate;
        this.timer = new OutcomeTimer(metrics, "pillar_" + metrics.workload() + "_command_seconds",
                "host commands run, by command and outcome", "command",
                e -> e instanceof CommandFailedException c && c.timedOut());
    }

    @Override
    public CommandResult run(Command command) {
        return timer.time(label(command), () -> delegate.run(command));
    }

    @Override
    public CommandResult pipe(Command first, Command second) {
        return timer.time(label(first) + "|" + label(second), () -> delegate.pipe(first, second));
    }

    @Override
    public Relayed relay(Command first, Command second, Flow flow) {
        return timer.time(label(first) + "|" + label(second), () -> delegate.relay(first, second, flow));
    }

    /** The command's label: its program's file name, and its subcommand for {@link #WITH_SUBCOMMANDS}. */
    static String label(Command command) {
        String program = command.program().substring(command.program().lastIndexOf('/') + 1);
        if (WITH_SUBCOMMANDS.contains(program) && command.argv().size() > 1
                && command.argv().get(1).matches("[a-z][a-z-]{0,15}")) {
            return program + " " + command.argv().get(1);
        }
        return program;
    }
}
