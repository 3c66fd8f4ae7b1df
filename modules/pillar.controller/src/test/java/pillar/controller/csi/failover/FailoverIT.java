package pillar.controller.csi.failover;

import static org.assertj.core.api.Assertions.assertThat;


import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.controller.csi.CsiHarness;

/** {@link FailoverScenarios} with the stateful fake agent, whose fencing mark is checked too. */
class FailoverIT {
    @RegisterExtension
    final CsiHarness harness = CsiHarness.fakeAgentOnly();

    @Test
    void theDeposedLeadersLateCallIsRefusedAndChangesNothing() throws Exception {
        FailoverScenarios.run(harness, id -> harness.fakeAgent().allowedHosts(id), CsiHarness.GIB);
        assertThat(harness.fakeAgent().mark("pvc-f").orElseThrow().generation())
                .isEqualTo(harness.state("pvc-f").orElseThrow().getStatus().getPublicationGeneration());
    }
}
