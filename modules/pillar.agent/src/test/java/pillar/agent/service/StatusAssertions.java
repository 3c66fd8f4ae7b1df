package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** Assertions on the gRPC status a call of the agent's API fails with. */
final class StatusAssertions {
    private StatusAssertions() {
    }

    /** {@code call} fails with {@code code} and a description that contains {@code message}. */
    static void assertRefused(Status.Code code, String message, Runnable call) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
            assertThat(e.getStatus().getDescription()).contains(message);
        });
    }
}
