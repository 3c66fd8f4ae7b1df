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
 * A controller with agent TLS files never dials a PillarAgent in plaintext by default: one without
 * {@code tls} is {@code AgentConnected=False TlsRequired} and not dialled; one that says
 * {@code tls.mode: none} is dialled, with {@code PlaintextTransport=True TlsModeNone} and a Warning event;
 * one with mutual TLS has {@code PlaintextTransport=False}.
 */
class AgentTransportIT {
    @RegisterExtension
    final ControllerHarness harness = new ControllerHarness(true);

    @Test
    void withoutTlsItIsRefusedAndNotDialled() {
        harness.agents.agent("192.0.2.40", 9500);
        harness.create(Pillars.agentAt("storage-4", "192.0.2.40", 9500));

        Condition refused = harness.awaitCondition(PillarAgent.class, "storage-4", PillarAgent.AGENT_CONNECTED, Condition.FALSE,
                Reasons.TLS_REQUIRED, a -> a.getStatus().getConditions());
        assertThat(refused.getMessage()).contains("tls.mode none").contains("tls.mode secret");
        assertThat(harness.agents.calls()).noneMatch(c -> c.contains("192.0.2.40"));
    }

    @Test
    void anExplicitNoneIsDialledInPlaintextWithAWarningConditionAndMutualTlsIsNot() {
        harness.agents.agent("192.0.2.41", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        harness.agents.agent("192.0.2.42", 9500).backend("fast", BackendKind.BACKEND_KIND_ZFS_ZVOL, "tank", "k8s");
        PillarAgent plain = Pillars.agentAt("storage-5", "192.0.2.41", 9500);
        AgentTls none = new AgentTls();
        none.setMode(AgentTls.Mode.NONE);
        plain.getSpec().setTls(none);
        harness.create(plain);
        PillarAgent secure = Pillars.agentAt("storage-6", "192.0.2.42", 9500);
        AgentTls secret = new AgentTls();
        secret.setMode(AgentTls.Mode.SECRET);
        secret.setSecretName("agent-tls");
        secure.getSpec().setTls(secret);
        harness.create(secure);

        harness.awaitCondition(PillarAgent.class, "storage-5", PillarAgent.AGENT_CONNECTED, Condition.TRUE, Reasons.CONNECTED,
                a -> a.getStatus().getConditions());
        Condition plaintext = harness.awaitCondition(PillarAgent.class, "storage-5", PillarAgent.PLAINTEXT_TRANSPORT,
                Condition.TRUE, Reasons.TLS_MODE_NONE, a -> a.getStatus().getConditions());
        assertThat(plaintext.getMessage()).contains("in clear");
        assertThat(harness.events("PillarAgent", "storage-5")).anySatisfy(e -> {
            assertThat(e.getType()).isEqualTo("Warning");
            assertThat(e.getReason()).isEqualTo(Reasons.TLS_MODE_NONE);
        });
        harness.awaitCondition(PillarAgent.class, "storage-6", PillarAgent.PLAINTEXT_TRANSPORT, Condition.FALSE,
                Reasons.MUTUAL_TLS, a -> a.getStatus().getConditions());
    }
}
