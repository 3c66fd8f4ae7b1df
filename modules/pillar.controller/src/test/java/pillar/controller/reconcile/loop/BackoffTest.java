package pillar.controller.reconcile.loop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void doublesUpToTheMaximum() {
        Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(10));
        assertThat(backoff.delay(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.delay(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.delay(4)).isEqualTo(Duration.ofSeconds(8));
        assertThat(backoff.delay(5)).isEqualTo(Duration.ofSeconds(10));
        assertThat(backoff.delay(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> new Backoff(Duration.ZERO, Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessage("the maximum backoff PT1S is below the initial PT2S");
    }
}
