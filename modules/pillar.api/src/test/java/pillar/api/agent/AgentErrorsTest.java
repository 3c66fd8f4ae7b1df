package pillar.api.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.AgentErrorReason;

class AgentErrorsTest {
    @Test
    void aReasonTravelsBesideTheCodeAndTheDescription() {
        StatusRuntimeException failure = AgentErrors.failure(Status.FAILED_PRECONDITION.withDescription("no snapshots here"),
                AgentErrorReason.AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED);

        assertThat(failure.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(failure.getStatus().getDescription()).isEqualTo("no snapshots here");
        assertThat(AgentErrors.reasonOf(failure)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED);
    }

    @Test
    void aDescriptionThatNamesAReasonIsNotOne() {
        StatusRuntimeException plain = Status.FAILED_PRECONDITION
                .withDescription("AGENT_ERROR_REASON_SNAPSHOTS_UNSUPPORTED: SnapshotsUnsupported").asRuntimeException();

        assertThat(AgentErrors.reasonOf(plain)).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertThat(AgentErrors.reasonOf(new IllegalStateException("x"))).isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
    }

    @Test
    void anotherDomainsOrAnUnknownReasonIsUnspecified() {
        assertThat(AgentErrors.reasonOf(withInfo("googleapis.com", "AGENT_ERROR_REASON_FENCED")))
                .isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertThat(AgentErrors.reasonOf(withInfo(AgentErrors.DOMAIN, "AGENT_ERROR_REASON_OF_A_NEWER_AGENT")))
                .isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_UNSPECIFIED);
        assertThat(AgentErrors.reasonOf(withInfo(AgentErrors.DOMAIN, "AGENT_ERROR_REASON_FENCED")))
                .isEqualTo(AgentErrorReason.AGENT_ERROR_REASON_FENCED);
    }

    private static StatusRuntimeException withInfo(String domain, String reason) {
        return StatusProto.toStatusRuntimeException(com.google.rpc.Status.newBuilder().setCode(Status.Code.ABORTED.value())
                .addDetails(Any.pack(ErrorInfo.newBuilder().setDomain(domain).setReason(reason).build())).build());
    }
}
