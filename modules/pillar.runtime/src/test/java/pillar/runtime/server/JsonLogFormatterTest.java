package pillar.runtime.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import io.helidon.logging.common.HelidonMdc;
import org.junit.jupiter.api.Test;

class JsonLogFormatterTest {
    private final JsonLogFormatter formatter = new JsonLogFormatter();

    private static LogRecord record(String message, Object... params) {
        LogRecord record = new LogRecord(Level.INFO, message);
        record.setLoggerName("pillar.test");
        record.setMillis(1_764_720_000_123L);
        record.setParameters(params);
        return record;
    }

    @Test
    void aLineIsOneObjectWithTheVolumeAsAField() {
        HelidonMdc.set(VolumeLogContext.ID_KEY, "pvc-42");
        try {
            assertThat(formatter.format(record("staged {0}", "ext4"))).isEqualTo(
                    "{\"time\":\"2025-12-03T00:00:00.123Z\",\"level\":\"INFO\",\"logger\":\"pillar.test\","
                            + "\"message\":\"staged ext4\",\"volume\":\"pvc-42\"}\n");
        } finally {
            HelidonMdc.remove(VolumeLogContext.ID_KEY);
        }
        assertThat(formatter.format(record("idle"))).doesNotContain("volume");
    }

    @Test
    void quotesNewlinesAndControlCharactersCannotForgeAField() {
        String line = formatter.format(record("a\"b\\c\nd\te\u0001"));
        assertThat(line).contains("\"message\":\"a\\\"b\\\\c\\nd\\te\\u0001\"");
        assertThat(line.indexOf('\n')).isEqualTo(line.length() - 1);
    }

    @Test
    void aFailureCarriesItsStackTrace() {
        LogRecord record = record("failed");
        record.setThrown(new IllegalStateException("boom"));
        assertThat(formatter.format(record)).contains("\"error\":\"java.lang.IllegalStateException: boom\\n\\tat ");
    }

    @Test
    void onlyTextAndJsonAreFormats() {
        assertThat(LogFormat.from(config(Map.of()))).isEqualTo(LogFormat.TEXT);
        assertThat(LogFormat.from(config(Map.of("log.format", "JSON")))).isEqualTo(LogFormat.JSON);
        assertThatThrownBy(() -> LogFormat.from(config(Map.of("log.format", "jsn"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("text or json");
    }

    private static Config config(Map<String, String> values) {
        return Config.builder().disableEnvironmentVariablesSource().disableSystemPropertiesSource()
                .addSource(ConfigSources.create(values)).build();
    }
}
