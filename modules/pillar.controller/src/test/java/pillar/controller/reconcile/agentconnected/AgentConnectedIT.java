package pillar.controller.reconcile.agentconnected;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
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
 * Proves that a PillarAgent's AgentConnected condition follows the agent: true with its version
 * and backends while it answers, false (AgentUnreachable, with a Warning event) while it is gone,
 * true again when it is back; and that an agent on a node is dialled at the node's InternalIP.
 */
class AgentConnectedIT {
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness();

    @Test
    void followsTheAgentAsItComesAndGoes() {
        harness.agents.agent("192.0.2.10", 9500).version("1.2.3")
                .backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.create(Pillars.agentAt("storage-1", "192.0.2.10", 9500));

        Condition up = harness.awaitAgentConnected("storage-1", Condition.TRUE, Reasons.CONNECTED);
        assertThat(up.getMessage()).contains("1.2.3", "192.0.2.10:9500", "fast");
        PillarAgent agent = harness.get(PillarAgent.class, "storage-1").orElseThrow();
        assertThat(agent.getStatus().getAgentVersion()).isEqualTo("1.2.3");
        assertThat(agent.getStatus().getEndpoint()).isEqualTo("192.0.2.10:9500");
        assertThat(agent.getStatus().getProtocols()).containsExactly("nvmeof-tcp");
        assertThat(agent.getStatus().getBackends()).singleElement().satisfies(b -> {
            assertThat(b.getName()).isEqualTo("fast");
            assertThat(b.getKind()).isEqualTo("zfs");
            assertThat(b.getPool()).isEqualTo("tank");
            assertThat(b.getParent()).isEqualTo("k8s");
        });

        harness.agents.agent("192.0.2.10", 9500).down();
        Condition down = harness.awaitAgentConnected("storage-1", Condition.FALSE, Reasons.AGENT_UNREACHABLE);
        assertThat(down.getMessage()).contains("GetCapabilities", "192.0.2.10:9500", "UNREACHABLE");
        assertThat(harness.get(PillarAgent.class, "storage-1").orElseThrow().getStatus().getAgentVersion()).isNull();
        assertThat(harness.events("PillarAgent", "storage-1"))
                .anySatisfy(e -> {
                    assertThat(e.getType()).isEqualTo("Warning");
                    assertThat(e.getReason()).isEqualTo(Reasons.AGENT_UNREACHABLE);
                });

        harness.agents.agent("192.0.2.10", 9500).up();
        Condition back = harness.awaitAgentConnected("storage-1", Condition.TRUE, Reasons.CONNECTED);
        assertThat(back.getLastTransitionTime()).isNotNull();
    }

    @Test
    void anAgentOnANodeIsDialledAtTheNodesInternalIp() {
        harness.create(Pillars.agentOnNode("storage-2", "worker-7"));
        harness.awaitAgentConnected("storage-2", Condition.FALSE, Reasons.NODE_NOT_FOUND);

        harness.agents.agent("198.51.100.7", 9500);
        harness.create(new NodeBuilder().withNewMetadata().withName("worker-7").endMetadata()
                .withNewStatus()
                .addNewAddress().withType("Hostname").withAddress("worker-7").endAddress()
                .addNewAddress().withType("InternalIP").withAddress("198.51.100.7").endAddress()
                .endStatus().build());

        harness.awaitAgentConnected("storage-2", Condition.TRUE, Reasons.CONNECTED);
        assertThat(harness.get(PillarAgent.class, "storage-2").orElseThrow().getStatus().getEndpoint())
                .isEqualTo("198.51.100.7:9500");
        assertThat(harness.agents.calls()).contains("GetCapabilities 198.51.100.7:9500");
    }

    @Test
    void mutualTlsWithoutTheControllersFilesIsReportedNotAttempted() {
        PillarAgent agent = Pillars.agentAt("storage-3", "192.0.2.30", 9500);
        AgentTls tls = new AgentTls();
        tls.setMode(AgentTls.Mode.SECRET);
        tls.setSecretName("agent-tls");
        agent.getSpec().setTls(tls);
        harness.agents.agent("192.0.2.30", 9500);
        harness.create(agent);

        Condition condition = harness.awaitAgentConnected("storage-3", Condition.FALSE, Reasons.TLS_NOT_CONFIGURED);
        assertThat(condition.getMessage()).contains("agents.tls");
        assertThat(harness.agents.calls()).noneMatch(c -> c.contains("192.0.2.30"));
    }
}
