package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendException.Kind;

/** The backends' refusals as the controller receives them: an operation still running is ABORTED, with its progress. */
class GrpcErrorsTest {
    private static Status statusOf(BackendException e) {
        return GrpcErrors.MAPPING.statusOf(e).orElseThrow();
    }

    @Test
    void aCopyStillRunningIsAbortedWhichTheControllerRetriesAndKeepsTheMessage() {
        String progress = "copying vg0/pvc-src to vg0/pvc-copy in the background: 40GiB of 100GiB (40%) at 480.0 MiB/s; retry";

        Status status = statusOf(new BackendException(Kind.BUSY, progress));

        assertThat(status.getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(status.getDescription()).isEqualTo(progress);
    }

    @Test
    void theOtherKindsKeepTheirCodes() {
        assertThat(statusOf(new BackendException(Kind.FAILED, "x")).getCode()).isEqualTo(Status.Code.INTERNAL);
        assertThat(statusOf(new BackendException(Kind.NOT_FOUND, "x")).getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(statusOf(new BackendException(Kind.CONFLICT, "x")).getCode()).isEqualTo(Status.Code.ALREADY_EXISTS);
        assertThat(statusOf(new BackendException(Kind.UNSUPPORTED, "x")).getDescription()).isEqualTo("SnapshotsUnsupported: x");
    }
}
