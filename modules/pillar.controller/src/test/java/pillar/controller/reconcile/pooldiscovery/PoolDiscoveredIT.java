package pillar.controller.reconcile.pooldiscovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.v1.BackendKind;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarStore;
import pillar.controller.crd.Reasons;
import pillar.controller.crd.StoreCapacity;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * Proves that a PillarStore's PoolDiscovered condition compares the store with the backend the
 * agent reports (kind, pool, parent): true with the capacity in the status when they agree;
 * BackendLayoutMismatch, BackendNotFound, AgentNotFound and AgentUnreachable otherwise.
 */
class PoolDiscoveredIT {
    private static final long GIB = 1024L * 1024 * 1024;
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @BeforeEach
    void anAgent() {
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));
    }

    private Condition awaitCondition(String name, String status, String reason) {
        return harness.awaitCondition(PillarStore.class, name, PillarStore.POOL_DISCOVERED, status, reason,
                s -> s.getStatus().getConditions());
    }

    @Test
    void capacityLandsInTheStatusAndFollowsTheAgent() {
        harness.agents.agent("192.0.2.10", 9500)
                .backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s")
                .capacity("fast", 100 * GIB, 93 * GIB);
        harness.create(Pillars.zfsStore("tank", "storage-1", "fast", "tank", "k8s"));

        Condition discovered = awaitCondition("tank", Condition.TRUE, Reasons.DISCOVERED);
        assertThat(discovered.getMessage()).contains("fast", "storage-1", "93Gi", "100Gi");
        StoreCapacity capacity = harness.get(PillarStore.class, "tank").orElseThrow().getStatus().getCapacity();
        assertThat(capacity.getTotalBytes()).isEqualTo(100 * GIB);
        assertThat(capacity.getAvailableBytes()).isEqualTo(93 * GIB);
        assertThat(capacity.getTotal()).isEqualTo("100Gi");
        assertThat(harness.get(PillarStore.class, "tank").orElseThrow().getStatus().getBackendKind()).isEqualTo("zfs");

        harness.agents.agent("192.0.2.10", 9500).capacity("fast", 100 * GIB, 40 * GIB);
        await().atMost(ControllerHarness.PATIENCE).until(() -> harness.get(PillarStore.class, "tank").orElseThrow()
                .getStatus().getCapacity().getAvailableBytes() == 40 * GIB);

        harness.agents.agent("192.0.2.10", 9500).down();
        Condition unreachable = awaitCondition("tank", Condition.FALSE, Reasons.AGENT_UNREACHABLE);
        assertThat(unreachable.getMessage()).contains("192.0.2.10:9500");
        assertThat(harness.get(PillarStore.class, "tank").orElseThrow().getStatus().getCapacity()).isNull();

        harness.agents.agent("192.0.2.10", 9500).up();
        awaitCondition("tank", Condition.TRUE, Reasons.DISCOVERED);
    }

    @Test
    void anotherLayoutOnTheAgentIsABackendLayoutMismatch() {
        harness.agents.agent("192.0.2.10", 9500)
                .backend("fast", BackendKind.BACKEND_KIND_LVM_THIN, "vg0", "pool0")
                .capacity("fast", 100 * GIB, 50 * GIB);
        harness.create(Pillars.zfsStore("tank", "storage-1", "fast", "tank", "k8s"));

        Condition mismatch = awaitCondition("tank", Condition.FALSE, Reasons.BACKEND_LAYOUT_MISMATCH);
        assertThat(mismatch.getMessage())
                .isEqualTo("the store says zfs pool tank, parent dataset k8s; the agent's backend fast is lvm volume group vg0,"
                        + " thin pool pool0");
        assertThat(harness.get(PillarStore.class, "tank").orElseThrow().getStatus().getCapacity()).isNull();
        assertThat(harness.agents.calls()).noneMatch(c -> c.startsWith("GetCapacity"));
        assertThat(harness.events("PillarStore", "tank"))
                .anySatisfy(e -> assertThat(e.getReason()).isEqualTo(Reasons.BACKEND_LAYOUT_MISMATCH));

        // the agent is reconfigured (restarted) with the store's layout: discovered at the next poll
        harness.agents.agent("192.0.2.10", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        awaitCondition("tank", Condition.TRUE, Reasons.DISCOVERED);
    }

    @Test
    void aThinPoolIsNotALinearVolumeGroup() {
        harness.agents.agent("192.0.2.10", 9500).backend("bulk", BackendKind.BACKEND_KIND_LVM_LINEAR, "vg0", "");
        harness.create(Pillars.lvmStore("bulk", "storage-1", "bulk", "vg0", "pool0"));
        assertThat(awaitCondition("bulk", Condition.FALSE, Reasons.BACKEND_LAYOUT_MISMATCH).getMessage())
                .contains("thin pool pool0", "vg0 (linear)");

        harness.create(Pillars.lvmStore("bulk-linear", "storage-1", "bulk", "vg0", null));
        awaitCondition("bulk-linear", Condition.TRUE, Reasons.DISCOVERED);
        assertThat(harness.get(PillarStore.class, "bulk-linear").orElseThrow().getStatus().getBackendKind()).isEqualTo("lvm");
    }

    @Test
    void aBackendTheAgentDoesNotHaveIsNotFound() {
        harness.agents.agent("192.0.2.10", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.create(Pillars.zfsStore("tank", "storage-1", "slow", "tank", "k8s"));
        assertThat(awaitCondition("tank", Condition.FALSE, Reasons.BACKEND_NOT_FOUND).getMessage())
                .isEqualTo("agent storage-1 has no backend slow; it has [fast]");
    }

    @Test
    void aStoreOfAMissingAgentWaitsForIt() {
        harness.agents.agent("192.0.2.20", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "")
                .capacity("fast", GIB, GIB);
        harness.create(Pillars.zfsStore("tank", "storage-2", "fast", "tank", null));
        assertThat(awaitCondition("tank", Condition.FALSE, Reasons.AGENT_NOT_FOUND).getMessage())
                .isEqualTo("PillarAgent storage-2 does not exist");

        harness.create(Pillars.agentAt("storage-2", "192.0.2.20", 9500));
        awaitCondition("tank", Condition.TRUE, Reasons.DISCOVERED);
    }
}
