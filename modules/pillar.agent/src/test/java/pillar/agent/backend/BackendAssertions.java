package pillar.agent.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Assertions on {@link BackendException}s. */
final class BackendAssertions {
    private BackendAssertions() {
    }

    /** The call throws a BackendException of {@code kind} whose message contains {@code fragment}. */
    static void assertFails(ThrowingCallable call, BackendException.Kind kind, String fragment) {
        assertThatThrownBy(call).isInstanceOfSatisfying(BackendException.class, e -> assertThat(e.kind()).as(e.getMessage()).isEqualTo(kind))
                .hasMessageContaining(fragment);
    }
}
