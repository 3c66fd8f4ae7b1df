package pillar.controller.crd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

class ConditionsTest {
    private static final Instant T1 = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant T2 = Instant.parse("2026-01-01T00:05:00Z");

    @Test
    void theTransitionTimeMovesOnlyWhenTheStatusChanges() {
        List<Condition> first = Conditions.with(List.of(), "AgentConnected", false, "AgentUnreachable", "down", 1, T1);
        List<Condition> sameStatus = Conditions.with(first, "AgentConnected", false, "AgentError", "error", 2, T2);
        assertThat(sameStatus).singleElement().satisfies(c -> {
            assertThat(c.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");
            assertThat(c.getReason()).isEqualTo("AgentError");
            assertThat(c.getObservedGeneration()).isEqualTo(2);
        });
        List<Condition> flipped = Conditions.with(sameStatus, "AgentConnected", true, "Connected", "ok", 2, T2);
        assertThat(flipped.getFirst().getLastTransitionTime()).isEqualTo("2026-01-01T00:05:00Z");
        assertThat(Conditions.isTrue(flipped, "AgentConnected")).isTrue();
    }

    @Test
    void aChangeOfReasonIsATransitionWorthAnEvent() {
        List<Condition> c = Conditions.with(List.of(), "PoolDiscovered", false, "AgentUnreachable", "down", 1, T1);
        assertThat(Conditions.transitions(List.of(), "PoolDiscovered", false, "AgentUnreachable")).isTrue();
        assertThat(Conditions.transitions(c, "PoolDiscovered", false, "AgentUnreachable")).isFalse();
        assertThat(Conditions.transitions(c, "PoolDiscovered", false, "BackendNotFound")).isTrue();
        assertThat(Conditions.transitions(c, "PoolDiscovered", true, "Discovered")).isTrue();
    }

    @Test
    void otherConditionsAreKept() {
        List<Condition> c = Conditions.with(List.of(), "B", true, "R", "m", 1, T1);
        c = Conditions.with(c, "A", true, "R", "m", 1, T1);
        assertThat(c).extracting(Condition::getType).containsExactly("A", "B");
    }
}
