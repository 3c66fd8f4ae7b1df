package pillar.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import pillar.api.agent.v1.ExportProtocol;
import pillar.api.agent.v1.GetCapabilitiesResponse;

/** A PillarAgent's status.protocols: read from the capability enum, or from an agent of the previous release's strings. */
class AgentProtocolsTest {
    @Test
    void theEnumIsReadFirstAndAProtocolThisControllerDoesNotKnowIsLeftOut() {
        GetCapabilitiesResponse capabilities = GetCapabilitiesResponse.newBuilder()
                .addExportProtocols(ExportProtocol.EXPORT_PROTOCOL_NVMEOF_TCP).addExportProtocols(ExportProtocol.EXPORT_PROTOCOL_NFS)
                .addExportProtocolsValue(99).addProtocols("stale-string").build();

        assertThat(PillarAgentReconciler.protocols(capabilities)).containsExactly("nvmeof-tcp", "nfs");
    }

    @Test
    void anAgentOfThePreviousReleaseIsReadFromItsStrings() {
        @SuppressWarnings("deprecation")
        GetCapabilitiesResponse old = GetCapabilitiesResponse.newBuilder().addProtocols("nvmeof-tcp").addProtocols("nfs").build();

        assertThat(PillarAgentReconciler.protocols(old)).containsExactly("nvmeof-tcp", "nfs");
    }
}
