package pillar.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import pillar.runtime.server.WorkloadConfig;
import pillar.controller.agent.GrpcAgentClient;

class ControllerConfigTest {
    @Test
    void defaults() {
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load());
        assertThat(config.kubeconfig()).isEmpty();
        assertThat(config.namespace()).isEmpty();
        assertThat(config.agentTls()).isEmpty();
        assertThat(config.reconcile().pollInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.agentSettings().deadline()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.agentSettings().mutationDeadline()).isEqualTo(Duration.ofSeconds(120))
                .isGreaterThan(GrpcAgentClient.AGENT_CALL_BOUND);
        assertThat(config.endpoint().healthPort()).isEqualTo(9808);
        assertThat(config.leaderElection().enabled()).isTrue();
        assertThat(config.leaderElection().lease()).isEqualTo("pillar-controller");
        assertThat(config.leaderElection().leaseDuration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(config.leaderElection().identity()).matches(".+_[0-9a-f]{8}");
    }

    @Test
    void metricsAreServedUnlessDisabled() {
        assertThat(ControllerConfig.from(WorkloadConfig.load()).metrics().enabled()).isTrue();
        assertThat(ControllerConfig.from(WorkloadConfig.load()).metrics().workload()).isEqualTo("controller");
        assertThat(ControllerConfig.from(WorkloadConfig.load("--metrics.enabled=false")).metrics().enabled()).isFalse();
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--metrics.enabled=sometimes")))
                .hasMessageContaining("metrics.enabled must be true or false");
    }

    @Test
    void theGracePeriodOfAbandonedCreatesIsTenMinutesUnlessSetAndPositive() {
        assertThat(ControllerConfig.from(WorkloadConfig.load()).abandonedCreateGrace()).isEqualTo(Duration.ofMinutes(10));
        assertThat(ControllerConfig.from(WorkloadConfig.load("--controller.abandoned-create-grace=1h")).abandonedCreateGrace())
                .isEqualTo(Duration.ofHours(1));
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--controller.abandoned-create-grace=0s")))
                .hasMessageContaining("controller.abandoned-create-grace must be positive");
    }

    @Test
    void leaderElectionKeys() {
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load("--controller.leader-election.enabled=false",
                "--controller.leader-election.identity=pod-1", "--controller.leader-election.lease=ctl",
                "--controller.leader-election.lease-duration=8s", "--controller.leader-election.renew-deadline=6s",
                "--controller.leader-election.retry-period=1s"));
        assertThat(config.leaderElection().enabled()).isFalse();
        assertThat(config.leaderElection().identity()).isEqualTo("pod-1");
        assertThat(config.leaderElection().lease()).isEqualTo("ctl");
        assertThat(config.leaderElection().renewDeadline()).isEqualTo(Duration.ofSeconds(6));
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--controller.leader-election.renew-deadline=20s")))
                .hasMessageContaining("lease-duration");
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--controller.leader-election.retry-period=9s")))
                .hasMessageContaining("renew-deadline");
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--controller.leader-election.lease=Bad_Name")))
                .hasMessageContaining("controller.leader-election.lease");
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--controller.leader-election.lease-duration=soon")))
                .hasMessageStartingWith("controller.leader-election.lease-duration must be a duration");
    }

    @Test
    void durationsInShortOrIsoForm() {
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load("--controller.poll-interval=500ms",
                "--controller.backoff-initial=2s", "--controller.backoff-max=PT5M", "--agents.deadline=1m",
                "--controller.resync=1h", "--agents.read-attempts=1"));
        assertThat(config.reconcile().pollInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.reconcile().backoff()).isEqualTo(new pillar.controller.reconcile.loop.Backoff(Duration.ofSeconds(2),
                Duration.ofMinutes(5)));
        assertThat(config.reconcile().resync()).isEqualTo(Duration.ofHours(1));
        assertThat(config.agentSettings().deadline()).isEqualTo(Duration.ofMinutes(1));
        assertThat(config.agentSettings().readAttempts()).isEqualTo(1);
    }

    @Test
    void aMutationDeadlineNoLongerThanTheAgentsOwnBoundIsRefused() {
        assertThat(ControllerConfig.from(WorkloadConfig.load("--agents.mutation-deadline=91s")).agentSettings()
                .mutationDeadline()).isEqualTo(Duration.ofSeconds(91));
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--agents.mutation-deadline=90s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("agents.mutation-deadline must be longer than the agent's own bound on a call (90s), so that the"
                        + " agent's answer is what is recorded; is 90000ms");
    }

    @Test
    void badValuesNameTheirKey() {
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--agents.deadline=soon")))
                .hasMessage("agents.deadline must be a duration like 500ms, 30s, 2m, 1h or PT30S, is 'soon'");
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--agents.tls.cert=/a.crt")))
                .hasMessage("agents.tls needs all of cert, key and ca, or none of them (plaintext)");
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--agents.tls.cert=/a.crt",
                "--agents.tls.key=/a.key", "--agents.tls.ca=/ca.crt")))
                .hasMessage("agents.tls: /a.crt is not a readable file");
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--controller.namespace=Kube_System")))
                .hasMessageStartingWith("controller.namespace must be a namespace name");
        assertThatThrownBy(() -> ControllerConfig.from(WorkloadConfig.load("--agents.read-attempts=0")))
                .hasMessage("agents.read-attempts must be 1 to 10, is 0");
    }
}
