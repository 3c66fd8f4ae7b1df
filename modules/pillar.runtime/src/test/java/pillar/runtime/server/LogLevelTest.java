package pillar.runtime.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.logging.Level;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LogLevelTest {
    @AfterEach
    void restore() {
        LogLevel.INFO.apply();
    }

    @Test
    void theDefaultIsInfoAndDebugReachesPillarsLoggersOnly() {
        assertThat(LogLevel.from(WorkloadConfig.load())).isEqualTo(LogLevel.INFO);
        LogLevel.from(WorkloadConfig.load("--log.level=debug")).apply();
        assertThat(Logger.getLogger("pillar.agent.backend").isLoggable(Level.FINE)).isTrue();
        assertThat(Logger.getLogger("pillar.agent.backend").isLoggable(Level.FINER)).isFalse();
        assertThat(Logger.getLogger("io.grpc").isLoggable(Level.FINE)).isFalse();
        LogLevel.from(WorkloadConfig.load("--log.level=ERROR")).apply();
        assertThat(Logger.getLogger("pillar.node").isLoggable(Level.WARNING)).isFalse();
    }

    @Test
    void anUnknownLevelIsRefusedNamingTheChoices() {
        assertThatThrownBy(() -> LogLevel.from(WorkloadConfig.load("--log.level=verbose")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("log.level must be error, warning, info, debug or trace, is 'verbose'");
    }
}
