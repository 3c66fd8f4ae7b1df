package pillar.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import pillar.api.server.WorkloadConfig;

class ControllerConfigTest {
    @Test
    void defaults() {
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load());
        assertThat(config.kubeconfig()).isEmpty();
        assertThat(config.namespace()).isEmpty();
        assertThat(config.agentTls()).isEmpty();
        assertThat(config.reconcile().pollInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.agentSettings().deadline()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.endpoint().healthPort()).isEqualTo(9808);
    }

    @Test
    void durationsInShortOrIsoForm() {
        ControllerConfig config = ControllerConfig.from(WorkloadConfig.load("--controller.poll-interval=500ms",
                "--controller.backoff-initial=2s", "--controller.backoff-max=PT5M", "--agents.deadline=1m",
                "--controller.resync=1h", "--agents.read-attempts=1"));
        assertThat(config.reconcile().pollInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.reconcile().backoff()).isEqualTo(new pillar.controller.reconcile.Backoff(Duration.ofSeconds(2),
                Duration.ofMinutes(5)));
        assertThat(config.reconcile().resync()).isEqualTo(Duration.ofHours(1));
        assertThat(config.agentSettings().deadline()).isEqualTo(Duration.ofMinutes(1));
        assertThat(config.agentSettings().readAttempts()).isEqualTo(1);
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
