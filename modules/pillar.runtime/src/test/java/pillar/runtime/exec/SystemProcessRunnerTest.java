package pillar.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process runner against real programs. */
class SystemProcessRunnerTest {
    private final ProcessRunner runner = new SystemProcessRunner();

    @Test
    void argumentsReachTheProgramVerbatimWithoutAShell() {
        CommandResult result = runner.run(Command.of(Duration.ofSeconds(10), "printf", "%s|", "$(id)", "a b", "*", ";"));
        assertThat(result.stdout()).isEqualTo("$(id)|a b|*|;|");
    }

    @Test
    void theLocaleIsFixed() {
        assertThat(runner.run(Command.of(Duration.ofSeconds(10), "env")).stdout()).contains("LC_ALL=C");
    }

    @Test
    void aNonZeroExitCarriesTheCodeAndStderr() {
        assertThatThrownBy(() -> runner.run(Command.of(Duration.ofSeconds(10), "ls", "/no/such/path")))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> {
                    assertThat(e.exitCode()).isEqualTo(2);
                    assertThat(e.stderr()).contains("No such file or directory");
                    assertThat(e.timedOut()).isFalse();
                });
    }

    @Test
    void aMissingProgramIsStatus127() {
        assertThatThrownBy(() -> runner.run(Command.of(Duration.ofSeconds(10), "/no/such/program")))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> assertThat(e.exitCode()).isEqualTo(127));
    }

    @Test
    void theDeadlineKillsTheChild() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> runner.run(Command.of(Duration.ofMillis(300), "sleep", "30")))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> assertThat(e.timedOut()).isTrue());
        // not a timing assertion on the machine's speed: only that we did not wait for the 30 s child
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
        assertThat(ProcessHandle.current().descendants().filter(p -> p.info().command().orElse("").endsWith("sleep")))
                .isEmpty();
    }

    /**
     * A child's own children go with it: {@code flock FILE sleep 37} stands in for a tool that forks a
     * helper and waits for it (flock runs the command as its child).
     */
    @Test
    void theDeadlineKillsTheChildsDescendantsToo(@TempDir Path dir) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> runner.run(Command.of(Duration.ofMillis(500), "flock", dir.resolve("lock").toString(),
                "sleep", "37")))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().arguments().map(a -> a.length == 1
                && a[0].equals("37")).orElse(false)).filter(ProcessHandle::isAlive))
                .as("sleep 37, the grandchild").isEmpty();
    }

    @Test
    void commandsRefuseNulAndEmptyPrograms() {
        assertThatThrownBy(() -> Command.of(Duration.ofSeconds(1), "echo", "a\0b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Command.of(Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Command.of(Duration.ZERO, "true")).isInstanceOf(IllegalArgumentException.class);
    }
}
