package pillar.runtime.exec;

/** What a command printed, after it exited with status 0. */
public record CommandResult(String stdout, String stderr) {
}
