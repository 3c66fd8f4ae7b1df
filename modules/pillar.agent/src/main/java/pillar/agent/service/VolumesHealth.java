package pillar.agent.service;

import java.time.Duration;
import java.util.Objects;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import pillar.api.agent.AgentErrors;
import pillar.api.agent.HealthBatch;
import pillar.api.agent.v1.GetVolumeHealthRequest;
import pillar.api.agent.v1.GetVolumesHealthRequest;
import pillar.api.agent.v1.GetVolumesHealthResponse;
import pillar.api.agent.v1.VolumeHealthError;
import pillar.api.agent.v1.VolumeHealthResult;
import pillar.api.value.InvalidValueException;
import pillar.runtime.exec.BoundedFanOut;
import pillar.runtime.exec.CallBudget;
import pillar.runtime.server.UnaryCall;

/**
 * GetVolumesHealth: each entry answered as GetVolumeHealth answers it ({@link VolumeHealth#of}), its
 * failure (a malformed ID, an unknown backend) being that entry's error with the status the single call
 * would have had. Entries are read {@link HealthBatch#AT_ONCE} at a time, each within what is left of the
 * call's budget; more than {@link HealthBatch#MAX_ENTRIES} is INVALID_ARGUMENT before any is read.
 */
final class VolumesHealth {
    private VolumesHealth() {
    }

    static GetVolumesHealthResponse read(AgentOperations operations, GetVolumesHealthRequest request) {
        if (request.getVolumesCount() > HealthBatch.MAX_ENTRIES) {
            throw new InvalidValueException("volumes", "holds " + request.getVolumesCount() + " entries; at most "
                    + HealthBatch.MAX_ENTRIES + " a call");
        }
        long deadline = System.nanoTime() + CallBudget.cap(Duration.ofDays(1)).toNanos();
        try {
            // the budget is the calling thread's: each entry gets what is left of it
            return GetVolumesHealthResponse.newBuilder().addAllResults(BoundedFanOut.map(request.getVolumesList(), HealthBatch.AT_ONCE,
                    "reading a volume's health", entry -> CallBudget.within(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())),
                            () -> one(operations, entry)))).build();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Status.CANCELLED.withDescription("interrupted while reading the volumes' health").asRuntimeException();
        }
    }

    private static VolumeHealthResult one(AgentOperations operations, GetVolumeHealthRequest entry) {
        VolumeHealthResult.Builder out = VolumeHealthResult.newBuilder().setVolumeId(entry.getVolumeId()).setBackend(entry.getBackend());
        try {
            return out.setHealth(VolumeHealth.of(operations, entry)).build();
        } catch (RuntimeException e) {
            StatusRuntimeException failure = UnaryCall.failureOf(e, GrpcErrors.MAPPING);
            return out.setError(VolumeHealthError.newBuilder().setCode(failure.getStatus().getCode().value())
                    .setMessage(Objects.toString(failure.getStatus().getDescription(), ""))
                    .setReason(AgentErrors.reasonOf(failure))).build();
        }
    }
}
