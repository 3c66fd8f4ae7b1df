package pillar.controller.reconcile.agentproblems;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.BackendKind;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * Proves that the problems an agent reports in GetCapabilities reach the Pillar objects: the
 * agent's own (AgentStateMissing) on the PillarAgent and on every PillarStore of it; a backend's
 * (ThinPoolNotZeroing) on the store of that backend, unless the store accepts a non-zeroing thin
 * pool explicitly; each with a Warning event, and gone once the agent no longer reports it. The
 * damaged records an agent lists become its DamagedRecords condition, the agent staying connected.
 */
class AgentProblemsIT {
    private static final long GIB = 1024L * 1024 * 1024;
    private static final String NOT_ZEROING = "thin pool vg0/pool0 does not zero new chunks";
    private static final String DAMAGED = "the export record /var/lib/pillar-csi/agent/exports/pvc-a is damaged (export"
            + " record: acl must be true or false): its volume is refused until an operator restores or removes the file";
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @BeforeEach
    void anAgent() {
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
        harness.agents.agent("192.0.2.10", 9500)
                .backend("thin", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0").capacity("thin", 10 * GIB, 10 * GIB)
                .backend("tank", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s").capacity("tank", 10 * GIB, 10 * GIB);
    }

    private Condition awaitStore(String name, String status, String reason) {
        return harness.awaitCondition(PillarStore.class, name, PillarStore.POOL_DISCOVERED, status, reason,
                s -> s.getStatus().getConditions());
    }

    @Test
    void aMissingAgentStateIsReportedOnTheAgentAndEachOfItsStores() {
        harness.create(Pillars.lvmStore("thin", "storage-1", "thin", "vg0", "pool0"));
        harness.create(Pillars.zfsStore("tank", "storage-1", "tank", "tank", "k8s"));
        awaitStore("thin", Condition.TRUE, Reasons.DISCOVERED);
        awaitStore("tank", Condition.TRUE, Reasons.DISCOVERED);

        harness.agents.agent("192.0.2.10", 9500).problem(Reasons.AGENT_STATE_MISSING,
                "live exports but no state identity: run the recovery");
        Condition agent = harness.awaitCondition(PillarAgent.class, "storage-1", PillarAgent.AGENT_CONNECTED, Condition.FALSE,
                Reasons.AGENT_STATE_MISSING, a -> a.getStatus().getConditions());
        assertThat(agent.getMessage()).isEqualTo("agent storage-1 answers but admits no volume change: live exports but no"
                + " state identity: run the recovery");
        assertThat(harness.get(PillarAgent.class, "storage-1").orElseThrow().getStatus().getBackends()).hasSize(2);
        for (String store : new String[] {"thin", "tank"}) {
            assertThat(awaitStore(store, Condition.FALSE, Reasons.AGENT_STATE_MISSING).getMessage())
                    .isEqualTo(agent.getMessage());
            assertThat(harness.get(PillarStore.class, store).orElseThrow().getStatus().getCapacity()).isNull();
            assertThat(harness.events("PillarStore", store)).anySatisfy(e -> {
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getReason()).isEqualTo(Reasons.AGENT_STATE_MISSING);
            });
        }
        assertThat(harness.events("PillarAgent", "storage-1")).anySatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo(Reasons.AGENT_STATE_MISSING);
        });

        harness.agents.agent("192.0.2.10", 9500).problem(null, null);
        harness.awaitCondition(PillarAgent.class, "storage-1", PillarAgent.AGENT_CONNECTED, Condition.TRUE, Reasons.CONNECTED,
                a -> a.getStatus().getConditions());
        awaitStore("thin", Condition.TRUE, Reasons.DISCOVERED);
        awaitStore("tank", Condition.TRUE, Reasons.DISCOVERED);
    }

    @Test
    void aNonZeroingThinPoolIsRefusedUntilTheStoreAcceptsIt() {
        harness.agents.agent("192.0.2.10", 9500).backendProblem("thin", Reasons.THIN_POOL_NOT_ZEROING, NOT_ZEROING);
        harness.create(Pillars.lvmStore("thin", "storage-1", "thin", "vg0", "pool0"));
        harness.create(Pillars.zfsStore("tank", "storage-1", "tank", "tank", "k8s"));

        Condition refused = awaitStore("thin", Condition.FALSE, Reasons.THIN_POOL_NOT_ZEROING);
        assertThat(refused.getMessage()).startsWith("backend thin on agent storage-1: " + NOT_ZEROING)
                .contains("lvchange --zero y", "spec.lvm.acceptNonZeroingThinPool: true");
        assertThat(harness.get(PillarStore.class, "thin").orElseThrow().getStatus().getCapacity()).isNull();
        assertThat(harness.events("PillarStore", "thin")).anySatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo(Reasons.THIN_POOL_NOT_ZEROING);
        });
        awaitStore("tank", Condition.TRUE, Reasons.DISCOVERED);
        harness.awaitCondition(PillarAgent.class, "storage-1", PillarAgent.AGENT_CONNECTED, Condition.TRUE, Reasons.CONNECTED,
                a -> a.getStatus().getConditions());

        harness.edit(PillarStore.class, "thin", s -> {
            s.getSpec().getLvm().setAcceptNonZeroingThinPool(true);
            return s;
        });
        Condition accepted = awaitStore("thin", Condition.TRUE, Reasons.DISCOVERED);
        assertThat(accepted.getMessage()).contains("accepted by spec.lvm.acceptNonZeroingThinPool", NOT_ZEROING);
        assertThat(harness.get(PillarStore.class, "thin").orElseThrow().getStatus().getCapacity().getTotalBytes())
                .isEqualTo(10 * GIB);
    }

    @Test
    void acceptanceCoversNoOtherProblemAndAnUnfitReasonIsAnAgentError() {
        harness.agents.agent("192.0.2.10", 9500).backendProblem("thin", "VolumeGroupMissing", "vg0 is not there");
        harness.create(Pillars.lvmStore("thin", "storage-1", "thin", "vg0", "pool0"));
        harness.edit(PillarStore.class, "thin", s -> {
            s.getSpec().getLvm().setAcceptNonZeroingThinPool(true);
            return s;
        });
        assertThat(awaitStore("thin", Condition.FALSE, "VolumeGroupMissing").getMessage())
                .isEqualTo("backend thin on agent storage-1: vg0 is not there");

        harness.agents.agent("192.0.2.10", 9500).backendProblem("thin", "not a reason\n", "garbled");
        assertThat(awaitStore("thin", Condition.FALSE, Reasons.AGENT_ERROR).getMessage()).endsWith(": garbled");
    }

    @Test
    void acceptingOnALinearStoreIsAnInvalidSpec() {
        PillarStore linear = Pillars.lvmStore("linear", "storage-1", "thin", "vg0", null);
        linear.getSpec().getLvm().setAcceptNonZeroingThinPool(true);
        harness.create(linear);
        assertThat(awaitStore("linear", Condition.FALSE, Reasons.INVALID_SPEC).getMessage())
                .isEqualTo("spec.lvm: acceptNonZeroingThinPool applies to a thinPool only");
    }

    @Test
    void damagedRecordsAreAConditionOfTheAgentUntilTheyAreGone() {
        awaitDamaged(Condition.FALSE, Reasons.RECORDS_INTACT);
        harness.agents.agent("192.0.2.10", 9500).damagedRecords(DAMAGED);
        assertThat(awaitDamaged(Condition.TRUE, Reasons.RECORDS_DAMAGED).getMessage()).isEqualTo("1 damaged: " + DAMAGED);
        harness.awaitCondition(PillarAgent.class, "storage-1", PillarAgent.AGENT_CONNECTED, Condition.TRUE, Reasons.CONNECTED,
                a -> a.getStatus().getConditions());
        assertThat(harness.events("PillarAgent", "storage-1")).anySatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo(Reasons.RECORDS_DAMAGED);
        });
        harness.agents.agent("192.0.2.10", 9500).damagedRecords();
        awaitDamaged(Condition.FALSE, Reasons.RECORDS_INTACT);
    }

    private Condition awaitDamaged(String status, String reason) {
        return harness.awaitCondition(PillarAgent.class, "storage-1", PillarAgent.DAMAGED_RECORDS, status, reason,
                a -> a.getStatus().getConditions());
    }
}
