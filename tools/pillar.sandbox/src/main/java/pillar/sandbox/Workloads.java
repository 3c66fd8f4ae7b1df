package pillar.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The three workloads' command lines for a bed, as their Deployment and DaemonSets would pass them. */
final class Workloads {
    /** The node ID of the sandbox's worker (node.id; NodeGetInfo reports what the node decides). */
    static final String NODE_NAME = "sandbox-worker";

    private Workloads() {
    }

    static Workload controller(BedLayout layout) {
        return new Workload("controller", "pillar.controller", "ControllerMain", BedLayout.CONTROLLER_HEALTH, List.of(
                "--csi.socket=" + layout.controllerSocket(), "--health.host=127.0.0.1",
                "--health.port=" + BedLayout.CONTROLLER_HEALTH, "--kubernetes.kubeconfig=" + layout.kubeconfig(),
                "--controller.namespace=pillar-system", "--controller.poll-interval=5s"));
    }

    /** The agent, configured with one backend per pool that exists (written to the layout's agent.yaml). */
    static Workload agent(BedLayout layout, StoragePools pools) throws IOException {
        StringBuilder config = new StringBuilder("""
                agent:
                  listen: {host: 127.0.0.1, port: %d}
                  state-dir: %s
                  configfs-root: /sys/kernel/config
                  backends:
                """.formatted(BedLayout.AGENT_PORT, layout.agentStateDir()));
        pools.agentBackends().forEach(b -> config.append("    - ").append(b).append('\n'));
        config.append("health: {host: 127.0.0.1, port: %d}%n".formatted(BedLayout.AGENT_HEALTH));
        Files.createDirectories(layout.agentConfig().getParent());
        Files.writeString(layout.agentConfig(), config);
        return new Workload("agent", "pillar.agent", "AgentMain", BedLayout.AGENT_HEALTH,
                List.of("--config", layout.agentConfig().toString()));
    }

    /** A node: {@code name} for the output, its own socket, kubelet, state directory and host NQN file. */
    static Workload node(String name, String nodeName, int healthPort, Path socket, Path kubeletDir, Path stateDir,
                         Path hostNqnFile) {
        return new Workload(name, "pillar.node", "NodeMain", healthPort, List.of("--csi.socket=" + socket,
                "--health.host=127.0.0.1", "--health.port=" + healthPort, "--node.id=" + nodeName,
                "--node.state-dir=" + stateDir, "--node.kubelet-dir=" + kubeletDir, "--node.hostnqn-file=" + hostNqnFile));
    }

    static Workload node(BedLayout layout) {
        return node("node", NODE_NAME, BedLayout.NODE_HEALTH, layout.nodeSocket(), layout.kubeletDir(),
                layout.nodeStateDir(), layout.hostNqnFile());
    }
}
