package pillar.controller.reconcile.agentconnected;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import io.grpc.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pillar.api.agent.AgentApiLevel;
import pillar.api.agent.v1.BackendKind;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.AgentTargets;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;
import pillar.controller.volume.AgentLocator;
import pillar.controller.volume.InMemoryInventory;
import pillar.runtime.server.CsiException;

/**
 * A controller and an agent of different agent API levels: an agent of the previous release (no levels
 * in its GetCapabilities) is connected; one that serves only newer controllers is
 * {@code AgentConnected=False AgentApiMismatch}, saying to upgrade the controller, and its volumes' calls
 * are refused FAILED_PRECONDITION before any dial; once it serves this level again it is connected.
 */
class AgentApiLevelIT {
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @Test
    void anAgentOfThePreviousReleaseIsConnected() {
        harness.agents.agent("192.0.2.60", 9500).version("0.1.0").apiLevels(0, 0)
                .backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.create(Pillars.agentAt("storage-old", "192.0.2.60", 9500));

        assertThat(harness.awaitAgentConnected("storage-old", Condition.TRUE, Reasons.CONNECTED).getMessage()).contains("0.1.0");
    }

    @Test
    void anAgentThatServesOnlyNewerControllersIsRefusedWithWhatToUpgradeAndItsVolumesAreNotDialled() {
        harness.agents.agent("192.0.2.61", 9500).version("9.0.0").apiLevels(AgentApiLevel.CURRENT + 2, AgentApiLevel.CURRENT + 1)
                .backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.create(Pillars.agentAt("storage-new", "192.0.2.61", 9500));

        Condition refused = harness.awaitAgentConnected("storage-new", Condition.FALSE, Reasons.AGENT_API_MISMATCH);
        assertThat(refused.getMessage()).contains("storage-new").contains("9.0.0").endsWith("upgrade the controller");
        PillarAgent seen = harness.get(PillarAgent.class, "storage-new").orElseThrow();
        AgentLocator locator = new AgentLocator(new InMemoryInventory().put(seen), new AgentTargets(n -> java.util.Optional.empty(),
                List::of, false));
        assertThatThrownBy(() -> locator.target("storage-new")).isInstanceOfSatisfying(CsiException.class, e -> {
            assertThat(e.code()).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(e.getMessage()).contains(Reasons.AGENT_API_MISMATCH).contains("upgrade the controller");
        });

        harness.agents.agent("192.0.2.61", 9500).apiLevels(AgentApiLevel.CURRENT + 1, AgentApiLevel.CURRENT);
        harness.awaitAgentConnected("storage-new", Condition.TRUE, Reasons.CONNECTED);
        PillarAgent connected = harness.get(PillarAgent.class, "storage-new").orElseThrow();
        assertThat(new AgentLocator(new InMemoryInventory().put(connected), new AgentTargets(n -> java.util.Optional.empty(),
                List::of, false)).target("storage-new").endpoint()).isEqualTo("192.0.2.61:9500");
    }
}
