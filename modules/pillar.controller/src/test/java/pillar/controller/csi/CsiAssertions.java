package pillar.controller.csi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/** Assertions on CSI answers. */
public final class CsiAssertions {
    private CsiAssertions() {
    }

    /** The call fails with exactly that code; returns the status's description. */
    public static String assertCode(Status.Code code, Runnable call) {
        StringBuilder description = new StringBuilder();
        assertThatThrownBy(call::run).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(code);
            description.append(e.getStatus().getDescription());
        });
        return description.toString();
    }
}
