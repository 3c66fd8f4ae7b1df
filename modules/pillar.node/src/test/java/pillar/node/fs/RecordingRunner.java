package pillar.node.fs;

import java.util.ArrayList;
import java.util.List;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/** Runs commands through another runner and records each, with how long it took. */
public final class RecordingRunner implements ProcessRunner {
    /** One command that ran (successfully or not) and its duration. */
    public record Ran(Command command, long millis) {
    }

    private final ProcessRunner delegate;
    private final List<Ran> ran = new ArrayList<>();

    public RecordingRunner(ProcessRunner delegate) {
        this.delegate = delegate;
    }

    @Override
    public CommandResult run(Command command) {
        long started = System.nanoTime();
        try {
            return delegate.run(command);
        } finally {
            synchronized (this) {
                ran.add(new Ran(command, (System.nanoTime() - started) / 1_000_000));
            }
        }
    }

    public synchronized List<Ran> ran() {
        return List.copyOf(ran);
    }

    public synchronized long count(String program) {
        return ran.stream().filter(r -> r.command().program().equals(program)).count();
    }
}
