package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/**
 * Answers each command with the next of the given captures, in order: what it printed, or its failure
 * with its exit status and stderr. Records every command; a command beyond the script fails the test.
 */
public final class ScriptedRunner implements ProcessRunner {
    private final Deque<Captures.Capture> answers;
    private final List<Command> commands = new ArrayList<>();

    public ScriptedRunner(Captures.Capture... answers) {
        this.answers = new ArrayDeque<>(Arrays.asList(answers));
    }

    /** A command that exits 0 after printing these. */
    public static Captures.Capture printing(String stdout, String stderr) {
        return new Captures.Capture("", stdout, stderr, 0);
    }

    @Override
    public synchronized CommandResult run(Command command) {
        commands.add(command);
        assertThat(answers).as("an answer for " + command).isNotEmpty();
        Captures.Capture answer = answers.removeFirst();
        if (answer.exitCode() != 0) {
            throw new CommandFailedException(command, answer.exitCode(), answer.stderr(), false);
        }
        return new CommandResult(answer.stdout(), answer.stderr());
    }

    public synchronized List<Command> commands() {
        return List.copyOf(commands);
    }

    /** The last command's argument list. */
    public synchronized List<String> lastArgv() {
        return commands.getLast().argv();
    }
}
