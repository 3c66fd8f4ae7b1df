package pillar.node.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import pillar.runtime.server.WorkloadConfig;

/** The node's configuration: node.id is required and validated, roots default to the host's. */
class NodeConfigTest {
    @Test
    void defaultsAreTheHostsOwnRoots() {
        NodeConfig c = NodeConfig.from(WorkloadConfig.load("--node.id=worker-1.example"));
        assertThat(c.nodeId().value()).isEqualTo("worker-1.example");
        assertThat(c.stateDir()).isEqualTo(Path.of("/var/lib/pillar-csi/node"));
        assertThat(c.kubeletDir()).isEqualTo(Path.of("/var/lib/kubelet"));
        assertThat(c.sysRoot()).isEqualTo(Path.of("/sys"));
        assertThat(c.devRoot()).isEqualTo(Path.of("/dev"));
        assertThat(c.mountinfo()).isEqualTo(Path.of("/proc/self/mountinfo"));
        assertThat(c.hostNqnFile()).isEqualTo(Path.of("/etc/nvme/hostnqn"));
        assertThat(c.fabricsDevice()).isEqualTo(Path.of("/dev/nvme-fabrics"));
        assertThat(c.attachTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.kernelTimeout()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void everyRootCanBeMoved() {
        NodeConfig c = NodeConfig.from(WorkloadConfig.load("--node.id=w", "--node.state-dir=/s", "--node.kubelet-dir=/k",
                "--node.sys-root=/fake/sys", "--node.dev-root=/fake/dev", "--node.mountinfo=/fake/mountinfo",
                "--node.hostnqn-file=/fake/hostnqn", "--node.fabrics-device=/fake/dev/nvme-fabrics",
                "--node.attach-timeout=PT2M", "--node.kernel-timeout=20"));
        assertThat(c.sysRoot()).isEqualTo(Path.of("/fake/sys"));
        assertThat(c.attachTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(c.kernelTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(NodeConfig.duration("90")).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void aBadConfigurationRefusesToStart() {
        assertThatThrownBy(() -> NodeConfig.from(WorkloadConfig.load())).hasMessageContaining("node.id is required");
        assertThatThrownBy(() -> NodeConfig.from(WorkloadConfig.load("--node.id=Worker_1")))
                .hasMessageContaining("node.id is not a valid node name");
        assertThatThrownBy(() -> NodeConfig.from(WorkloadConfig.load("--node.id=w", "--node.kubelet-dir=kubelet")))
                .hasMessageContaining("absolute");
        assertThatThrownBy(() -> NodeConfig.from(WorkloadConfig.load("--node.id=w", "--node.kubelet-dir=/")))
                .hasMessageContaining("must not be /");
        assertThatThrownBy(() -> NodeConfig.from(WorkloadConfig.load("--node.id=w", "--node.attach-timeout=soon")))
                .hasMessageContaining("attach-timeout");
        assertThatThrownBy(() -> NodeConfig.from(WorkloadConfig.load("--node.id=w", "--node.attach-timeout=0")))
                .hasMessageContaining("attach-timeout");
        assertThatThrownBy(() -> NodeConfig.from(WorkloadConfig.load("--node.id=w", "--node.kernel-timeout=soon")))
                .hasMessageContaining("node.kernel-timeout must be seconds");
        assertThatThrownBy(() -> NodeConfig.from(WorkloadConfig.load("--node.id=w", "--node.kernel-timeout=PT2H")))
                .hasMessageContaining("node.kernel-timeout must be more than 0 and at most 1 hour");
    }
}
