package pillar.agent.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.Test;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.BackendException.Kind;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.api.fencing.FencingViolation;
import pillar.runtime.durable.DamagedRecordException;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.server.ErrorMapping;
import pillar.runtime.server.UnaryCall;

/**
 * The agent's failures as the controller receives them: each refusal with its code and the reason it
 * decides on in the details; a programming error is INTERNAL, never a precondition.
 */
class GrpcErrorsTest {
    private static StatusRuntimeException failureOf(RuntimeException e) {
        return UnaryCall.failureOf(e, GrpcErrors.MAPPING);
    }

    @Test
    void aCopyStillRunningIsAbortedInProgressWhichTheControllerRetriesAndKeepsTheMessage() {
        String progress = "copying vg0/pvc-src to vg0/pvc-copy in the background: 40GiB of 100GiB (40%) at 480.0 MiB/s; retry";

        StatusRuntimeException failure = failureOf(new BackendException(Kind.BUSY, progress));

        assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(failure.getStatus().getDescription()).isEqualTo(progress);
        assertThat(AgentErrors.reasonOf(failure)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_IN_PROGRESS);
    }

    @Test
    void eachRefusalCarriesItsReason() {
        assertReason(new BackendException(Kind.UNSUPPORTED, "x"), Status.Code.FAILED_PRECONDITION,
                AgentErrorReason.AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED);
        assertReason(new BackendException(Kind.UNAVAILABLE, "x"), Status.Code.FAILED_PRECONDITION,
                AgentErrorReason.AGENT_ERROR_REASON_POOL_UNAVAILABLE);
        assertReason(new BackendException(Kind.FOREIGN, "x"), Status.Code.FAILED_PRECONDITION,
                AgentErrorReason.AGENT_ERROR_REASON_VOLUME_FOREIGN);
        assertReason(new BackendException(Kind.IN_USE, "x"), Status.Code.FAILED_PRECONDITION,
                AgentErrorReason.AGENT_ERROR_REASON_VOLUME_IN_USE);
        assertReason(new FencingViolation(FencingViolation.Reason.STALE_GENERATION, "stale"), Status.Code.FAILED_PRECONDITION, AgentErrorReason.AGENT_ERROR_REASON_FENCED);
        assertReason(new AgentRefusal(AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT, "exported otherwise"),
                Status.Code.FAILED_PRECONDITION, AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT);
        assertReason(new DamagedRecordException("the export record is damaged", null), Status.Code.FAILED_PRECONDITION,
                AgentErrorReason.AGENT_ERROR_REASON_RECORD_DAMAGED);
    }

    @Test
    void theOtherKindsKeepTheirCodesWithoutAReasonAndATimedOutCommandIsDeadlineExceeded() {
        assertReason(new BackendException(Kind.FAILED, "x"), Status.Code.INTERNAL, AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertReason(BackendException.failed("zfs get of tank/k8s/pvc-a failed", new CommandFailedException(
                        Command.of(Duration.ofSeconds(1), "zfs", "get"), -1, "not started: the call's time budget is spent", true)),
                Status.Code.DEADLINE_EXCEEDED, AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertReason(BackendException.failed("zfs get of tank/k8s/pvc-a failed", new CommandFailedException(
                        Command.of(Duration.ofSeconds(1), "zfs", "get"), 2, "usage", false)),
                Status.Code.INTERNAL, AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertReason(new BackendException(Kind.NOT_FOUND, "x"), Status.Code.NOT_FOUND, AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertReason(new BackendException(Kind.CONFLICT, "x"), Status.Code.ALREADY_EXISTS,
                AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertReason(new BackendException(Kind.NO_SPACE, "x"), Status.Code.RESOURCE_EXHAUSTED,
                AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
    }

    @Test
    void aProgrammingErrorIsInternalNotAPrecondition() {
        assertReason(new IllegalStateException("a job on pvc-a is registered already"), Status.Code.INTERNAL,
                AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertThat(GrpcErrors.MAPPING.failureOf(new IllegalStateException("x"))).isEmpty();
        assertThat(ErrorMapping.NONE.failureOf(new IllegalStateException("x"))).isEmpty();
    }

    private static void assertReason(RuntimeException e, Status.Code code, AgentErrorReason reason) {
        StatusRuntimeException failure = failureOf(e);
        assertThat(failure.getStatus().getCode()).as(e.toString()).isEqualTo(code);
        assertThat(AgentErrors.reasonOf(failure)).as(e.toString()).isEqualTo(reason);
    }
}
