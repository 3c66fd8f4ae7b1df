package pillar.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;

import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import org.junit.jupiter.api.Test;

class CallBudgetsTest {
    private static Duration budget(Map<String, String> values) {
        return CallBudgets.from(Config.just(ConfigSources.create(values)));
    }

    @Test
    void ninetySecondsUnlessConfigured() {
        assertThat(budget(Map.of())).isEqualTo(Duration.ofSeconds(90));
        assertThat(budget(Map.of("agent.call-budget-seconds", "10"))).isEqualTo(Duration.ofSeconds(10));
        assertThat(budget(Map.of("agent.call-budget-seconds", "110"))).isEqualTo(Duration.ofSeconds(110));
    }

    @Test
    void aBudgetOutOfRangeOrNotANumberIsRefusedNamingTheKey() {
        for (String bad : new String[] {"4", "111", "0", "-1", "90s", "", "1e3"}) {
            assertThatThrownBy(() -> budget(Map.of("agent.call-budget-seconds", bad))).as(bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("agent.call-budget-seconds must be");
        }
    }
}
