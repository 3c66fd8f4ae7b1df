package pillar.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import pillar.launch.WorkloadCommand;

/** The three workloads' command lines for a bed, as their Deployment and DaemonSets would pass them. */
final class Workloads {
    /** The node ID of the sandbox's worker (node.id; NodeGetInfo reports what the node decides). */
    static final String NODE_NAME = "sandbox-worker";

    /**
     * The JVM flags of the sandbox tool's own JVMs (the driver, the emulated API). dev/sandbox uses
     * the same (its {@code java_flags}): an AOT cache is only used with the flags it was recorded with.
     */
    static final List<String> SANDBOX_JVM_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-XX:-UsePerfData", "-Xmx256m", "-XX:-AOTClassLinking", "-Xlog:aot=error", "-Xlog:cds=error",
            "--enable-native-access=ALL-UNNAMED");

    private Workloads() {
    }

    /**
     * The emulated Kubernetes API as its own JVM ({@code SandboxMain kube-api}), from the sandbox
     * tool's class path, with the AOT cache {@code dev/sandbox} records on the host when it is newer
     * than the jars (it is recorded from the same class path and flags).
     */
    static List<String> emulator(BedLayout layout) {
        Path target = layout.project().resolve("tools/pillar.sandbox/target");
        Path jar = WorkloadCommand.jar(target, "pillar.sandbox");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(SANDBOX_JVM_FLAGS);
        command.addAll(List.of("-cp", jar + ":" + target.resolve("modules") + "/*"));
        Path aot = layout.aotCaches().resolve("pillar.sandbox.aot");
        if (WorkloadCommand.fresh(aot, target.resolve("modules"), jar)) {
            command.add("-XX:AOTCache=" + aot);
        }
        command.addAll(List.of(SandboxMain.class.getName(), "kube-api", Integer.toString(layout.ports().kubeApi()),
                layout.kubeconfig().toString(), layout.project().resolve("helm/pillar-csi/crds").toString()));
        return command;
    }

    /** The controller, calling the agent over mutual TLS with {@code pki}'s client certificate (agents.tls). */
    static Workload controller(BedLayout layout, SandboxPki pki) {
        int health = layout.ports().controllerHealth();
        return new Workload("controller", "pillar.controller", "ControllerMain", health, List.of(
                "--agents.tls.cert=" + pki.controllerCert(), "--agents.tls.key=" + pki.controllerKey(),
                "--agents.tls.ca=" + pki.controllerCa(),
                "--csi.socket=" + layout.controllerSocket(), "--health.host=127.0.0.1",
                "--health.port=" + health, "--kubernetes.kubeconfig=" + layout.kubeconfig(),
                "--controller.namespace=pillar-system", "--controller.poll-interval=5s",
                // emulation is tens of times slower than a real node: LVM and ZFS calls take seconds, and
                // a lease renewal may come late; one replica, so a long lease costs nothing
                "--agents.deadline=180s", "--controller.leader-election.lease-duration=90s",
                "--controller.leader-election.renew-deadline=60s", "--controller.leader-election.retry-period=5s"));
    }

    /**
     * The agent with {@code backends} (YAML flow maps, e.g. {@link StoragePools#agentBackends}) on
     * {@code configfs}, configured through the layout's agent.yaml (written here): mutual TLS with
     * {@code pki}'s server certificate, admitting only the controller's name, as the chart configures it.
     */
    static Workload agent(BedLayout layout, List<String> backends, Path configfs, SandboxPki pki) throws IOException {
        StringBuilder config = new StringBuilder("""
                agent:
                  listen: {host: 127.0.0.1, port: %d}
                  state-dir: %s
                  configfs-root: %s
                  tls: {cert: %s, key: %s, ca: %s, client-names: [%s]}
                  backends:
                """.formatted(layout.ports().agent(), layout.agentStateDir(), configfs, pki.agentCert(), pki.agentKey(),
                pki.agentCa(), SandboxPki.CONTROLLER_NAME));
        backends.forEach(b -> config.append("    - ").append(b).append('\n'));
        config.append("health: {host: 127.0.0.1, port: %d}%n".formatted(layout.ports().agentHealth()));
        Files.createDirectories(layout.agentConfig().getParent());
        Files.writeString(layout.agentConfig(), config);
        return new Workload("agent", "pillar.agent", "AgentMain", layout.ports().agentHealth(),
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
        return node("node", NODE_NAME, layout.ports().nodeHealth(), layout.nodeSocket(), layout.kubeletDir(),
                layout.nodeStateDir(), layout.hostNqnFile());
    }
}
