package pillar.controller.reconcile.agentproblems;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.BackendKind;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * The damaged records an agent lists in GetCapabilities become the PillarAgent's condition
 * DamagedRecords (true, with the files and a Warning event), while the agent stays connected; the
 * condition turns false once the agent lists none.
 */
class AgentDamagedRecordsIT {
    private static final long GIB = 1024L * 1024 * 1024;
    private static final String LINE = "the export record /var/lib/pillar-csi/agent/exports/pvc-a is damaged (export record:"
            + " acl must be true or false): its volume is refused until an operator restores or removes the file";
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @BeforeEach
    void anAgent() {
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        harness.agents.agent("192.0.2.10", 9500)
                .backend("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0").capacity("thin", 10 * GIB, 10 * GIB);
    }

    private Condition await(String status, String reason) {
        return harness.awaitCondition(PillarAgent.class, "storage-1", PillarAgent.DAMAGED_RECORDS, status, reason,
                a -> a.getStatus().getConditions());
    }

    @Test
    void damagedRecordsAreAConditionOfTheAgentUntilTheyAreGone() {
        await(Condition.FALSE, Reasons.RECORDS_INTACT);
        harness.agents.agent("192.0.2.10", 9500).damagedRecords(LINE);
        assertThat(await(Condition.TRUE, Reasons.RECORDS_DAMAGED).getMessage()).isEqualTo("1 damaged: " + LINE);
        harness.awaitCondition(PillarAgent.class, "storage-1", PillarAgent.AGENT_CONNECTED, Condition.TRUE, Reasons.CONNECTED,
                a -> a.getStatus().getConditions());
        assertThat(harness.events("PillarAgent", "storage-1")).anySatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo(Reasons.RECORDS_DAMAGED);
        });
        harness.agents.agent("192.0.2.10", 9500).damagedRecords();
        await(Condition.FALSE, Reasons.RECORDS_INTACT);
    }
}
