package pillar.controller.reconcile.agenttls;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import pillar.api.agent.v1.BackendKind;
import pillar.controller.crd.AgentTls;
import pillar.controller.crd.Condition;
import pillar.controller.crd.PillarAgent;
import pillar.controller.crd.Reasons;
import pillar.controller.reconcile.ControllerHarness;
import pillar.controller.reconcile.Pillars;

/**
 * Two PillarAgents dialled with mutual TLS that would verify the same name in their agents' certificates:
 * the newer is {@code AgentConnected=False ServerNameShared} and never dialled (one storage node's
 * certificate would answer for the other), the older stays connected; once the newer names its own
 * {@code tls.serverName}, it is dialled and connects. Names compare without case; a PillarAgent without
 * a serverName verifies the address it is dialled at.
 */
class SharedServerNameIT {
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness(true);

    @Test
    void theNewerOfTwoAgentsVerifyingOneNameIsRefusedUntilItNamesItsOwn() {
        harness.agents.agent("192.0.2.51", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.agents.agent("192.0.2.52", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.create(mutual(Pillars.agentAt("storage-a", "192.0.2.51", 9500), "storage-a.pillar-agent"));
        harness.awaitAgentConnected("storage-a", Condition.TRUE, Reasons.CONNECTED);
        // created in the same second or later: by time, then by name, storage-a is the older
        harness.create(mutual(Pillars.agentAt("storage-b", "192.0.2.52", 9500), "Storage-A.pillar-agent"));

        Condition refused = harness.awaitAgentConnected("storage-b", Condition.FALSE, Reasons.SERVER_NAME_SHARED);
        assertThat(refused.getMessage()).contains("PillarAgent storage-a").contains("storage-a.pillar-agent")
                .contains("its own tls.serverName");
        assertThat(harness.agents.calls()).noneMatch(c -> c.contains("192.0.2.52"));
        harness.awaitAgentConnected("storage-a", Condition.TRUE, Reasons.CONNECTED);

        harness.edit(PillarAgent.class, "storage-b", b -> {
            b.getSpec().getTls().setServerName("storage-b.pillar-agent");
            return b;
        });
        harness.awaitAgentConnected("storage-b", Condition.TRUE, Reasons.CONNECTED);
    }

    @Test
    void withoutAServerNameTheAddressIsTheNameAndTwoAgentsAtOneAddressAreOneTooMany() {
        harness.agents.agent("192.0.2.53", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.create(mutual(Pillars.agentAt("storage-c", "192.0.2.53", 9500), null));
        harness.awaitAgentConnected("storage-c", Condition.TRUE, Reasons.CONNECTED);
        harness.create(mutual(Pillars.agentAt("storage-d", "192.0.2.53", 9501), null));
        harness.awaitAgentConnected("storage-d", Condition.FALSE, Reasons.SERVER_NAME_SHARED);
    }

    private static PillarAgent mutual(PillarAgent agent, String serverName) {
        AgentTls tls = new AgentTls();
        tls.setMode(AgentTls.Mode.SECRET);
        tls.setSecretName("agent-tls");
        tls.setServerName(serverName);
        agent.getSpec().setTls(tls);
        return agent;
    }
}
