package pillar.runtime.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** A call's budget caps every command in it; outside one, a command keeps its own deadline. */
class CallBudgetTest {
    private final SystemProcessRunner runner = new SystemProcessRunner();

    @Test
    void aCommandIsCappedToWhatIsLeftOfTheCallsBudget() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> CallBudget.within(Duration.ofMillis(400),
                () -> runner.run(Command.of(Duration.ofMinutes(1), "sleep", "41"))))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(25));
    }

    @Test
    void aSpentBudgetStartsNoCommand() {
        assertThatThrownBy(() -> CallBudget.within(Duration.ZERO, () -> runner.run(Command.of(Duration.ofMinutes(1), "true"))))
                .isInstanceOfSatisfying(CommandFailedException.class, e -> assertThat(e.timedOut()).isTrue())
                .hasMessageContaining("budget is spent");
    }

    @Test
    void anInnerBudgetNeverOutlastsTheOuterOneAndNoneCapsNothing() {
        assertThat(CallBudget.cap(Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(5));
        Duration inner = CallBudget.within(Duration.ofSeconds(1), () -> CallBudget.within(Duration.ofHours(1),
                () -> CallBudget.cap(Duration.ofMinutes(5))));
        assertThat(inner).isLessThanOrEqualTo(Duration.ofSeconds(1));
        assertThat(CallBudget.within(Duration.ofHours(1), () -> CallBudget.cap(Duration.ofSeconds(3)))).isEqualTo(Duration.ofSeconds(3));
        assertThat(CallBudget.cap(Duration.ofMinutes(5))).as("after the call").isEqualTo(Duration.ofMinutes(5));
    }
}
