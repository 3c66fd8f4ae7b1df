package pillar.launch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real child processes (coreutils): their log, their exit, their readiness, how they are ended. */
class ChildProcessTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    @Test
    void itsOutputGoesToItsLogAndARestartAppendsToIt() {
        ChildProcess first = ChildProcess.start("echo", List.of("echo", "first run"), dir.resolve("logs/echo.log"));
        assertThat(first.awaitExit(PATIENCE)).isZero();
        ChildProcess second = first.again();
        assertThat(second.awaitExit(PATIENCE)).isZero();
        assertThat(second.logLines()).containsExactly("first run", "first run");
        assertThat(ChildProcess.start("echo", List.of("echo", "replaced"), dir.resolve("logs/echo.log")).awaitExit(PATIENCE)).isZero();
        assertThat(second.logLines()).containsExactly("replaced");
    }

    @Test
    void theEnvironmentIsAddedTo() {
        ChildProcess env = ChildProcess.start("env", List.of("env"), dir.resolve("env.log"), Map.of("PILLAR_PROBE", "yes"), false);
        assertThat(env.awaitExit(PATIENCE)).isZero();
        assertThat(env.logLines()).contains("PILLAR_PROBE=yes").anyMatch(line -> line.startsWith("PATH="));
    }

    @Test
    void aProcessThatExitsBeforeItIsReadyFailsWithItsStatusAndLog() {
        ChildProcess failing = ChildProcess.start("ls", List.of("ls", dir.resolve("missing").toString()), dir.resolve("ls.log"));
        assertThatThrownBy(() -> failing.awaitReady(() -> false, PATIENCE, Duration.ofMillis(20)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ls exited with status 2 before it was ready")
                .hasMessageContaining("missing");
    }

    @Test
    void readinessHasADeadlineAndAStopEndsTheProcess() {
        ChildProcess sleeper = ChildProcess.start("sleep", List.of("sleep", "600"), dir.resolve("sleep.log"));
        assertThatThrownBy(() -> sleeper.awaitReady(() -> false, Duration.ofMillis(300), Duration.ofMillis(20)))
                .hasMessageContaining("sleep was not ready within PT0.3S");
        assertThat(sleeper.isAlive()).isTrue();
        assertThat(sleeper.awaitReady(() -> true, PATIENCE, Duration.ofMillis(20))).isPositive();
        sleeper.stop(PATIENCE);
        assertThat(sleeper.isAlive()).isFalse();
        assertThatThrownBy(() -> sleeper.requireAlive("it answered")).hasMessageContaining("sleep exited with status 143 before it answered");
    }

    @Test
    void killEndsItAtOnceAndARunningProcessCannotBeStartedAgain() {
        ChildProcess sleeper = ChildProcess.start("sleep", List.of("sleep", "600"), dir.resolve("sleep.log"));
        assertThatThrownBy(sleeper::again).hasMessageContaining("sleep is still running");
        sleeper.kill();
        assertThat(sleeper.isAlive()).isFalse();
        assertThat(sleeper.awaitExit(PATIENCE)).isEqualTo(137);
    }
}
