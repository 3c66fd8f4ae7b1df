package pillar.controller.volume.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.AgentErrorReason;
import pillar.controller.agent.AgentException;
import pillar.controller.agent.AgentTarget;
import pillar.runtime.server.CsiException;

/**
 * An agent that refuses an export or a grant for want of a kernel feature (its capabilities said otherwise a
 * moment before) is FAILED_PRECONDITION with the controller's reason and advice, read from the agent's
 * reason and never from its message; any other failure passes as it is.
 */
class KernelRefusalTest {
    private static final AgentTarget TARGET = AgentTarget.plaintext("192.0.2.10", 9500);

    @Test
    void tlsAndAuthRefusalsAreReadFromTheReason() {
        assertThat(HostAuthentication.kernelRefusal(refusal(AgentErrorReason.AGENT_ERROR_REASON_NVME_TLS_UNSUPPORTED), "storage-1"))
                .isInstanceOfSatisfying(CsiException.class, e -> assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION))
                .hasMessageContaining("NvmeTlsUnsupported").hasMessageContaining("storage-1")
                .hasMessageNotContaining("whatever the agent said");
        assertThat(HostAuthentication.kernelRefusal(refusal(AgentErrorReason.AGENT_ERROR_REASON_NVME_AUTH_UNSUPPORTED), "storage-1"))
                .isInstanceOf(CsiException.class).hasMessageContaining("NvmeAuthUnsupported");
        AgentException other = refusal(AgentErrorReason.AGENT_ERROR_REASON_EXPORT_CONFLICT);
        assertThat(HostAuthentication.kernelRefusal(other, "storage-1")).isSameAs(other);
    }

    private static AgentException refusal(AgentErrorReason reason) {
        return new AgentException(AgentException.Kind.FAILED_PRECONDITION, reason, "ExportVolume", TARGET,
                "FAILED_PRECONDITION: whatever the agent said", null);
    }
}
