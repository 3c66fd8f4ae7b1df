package pillar.node;

import java.nio.file.Files;
import java.util.logging.Logger;

import io.helidon.config.Config;
import io.helidon.logging.common.LogConfig;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.runtime.metrics.TimedProcessRunner;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.CsiEndpoint;
import pillar.runtime.server.CsiServices;
import pillar.runtime.server.IdentityService;
import pillar.runtime.server.LogFormat;
import pillar.runtime.server.LogLevel;
import pillar.runtime.server.WorkloadConfig;
import pillar.runtime.server.WorkloadServer;
import pillar.api.value.Nqn;
import pillar.node.config.NodeConfig;
import pillar.node.fs.FilesystemTools;
import pillar.node.mount.DeadlineMounter;
import pillar.node.mount.JnaMounter;
import pillar.node.nvme.DeadlineInitiator;
import pillar.node.nvme.FabricsInitiator;
import pillar.node.nvme.HostNqn;
import pillar.node.nvme.SysfsNvme;
import pillar.node.service.KubeletPaths;
import pillar.node.service.NodeGrpcService;
import pillar.node.service.NodePorts;
import pillar.runtime.server.VolumeLocks;
import pillar.node.stage.StageRecords;
import pillar.node.sys.KernelWait;

/**
 * pillar-node: runs on every worker and serves CSI Identity and Node on the kubelet plugin socket,
 * and health over HTTP. It refuses to start without a valid {@code node.id}, or when its state
 * directory or host NQN cannot be set up.
 */
public final class NodeMain {
    /** Health port; distinct from the agent's, both DaemonSets share the host network. */
    public static final int DEFAULT_HEALTH_PORT = 9809;
    /** The workload's name in its meters: {@code pillar_node_*}, {@code workload="node"}. */
    private static final String WORKLOAD = "node";
    private static final Logger LOG = Logger.getLogger(NodeMain.class.getName());

    private NodeMain() {
    }

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        Config config;
        CsiEndpoint endpoint;
        WorkloadMetrics metrics;
        NodePorts ports;
        try {
            config = WorkloadConfig.load(args);
            LogFormat.from(config).apply();
            LogLevel.from(config).apply();
            endpoint = CsiEndpoint.from(config, DEFAULT_HEALTH_PORT);
            metrics = WorkloadMetrics.from(config, WORKLOAD);
            ports = realPorts(NodeConfig.from(config), metrics);
        } catch (RuntimeException e) {
            System.err.println("pillar-node: refusing to start: " + e.getMessage());
            System.exit(2);
            return;
        }
        WorkloadServer server = start(endpoint, ports, metrics);
        LOG.info(() -> "pillar-node " + ports.nodeId() + " ready: CSI on unix:" + endpoint.socket() + ", health on port "
                + server.healthPort() + ", host NQN " + ports.hostNqn());
    }

    /**
     * The real adapters for {@code config}: JNA mounter, the kernel's fabrics device, the host's tools
     * (each run timed into {@code metrics}: {@code pillar_node_command_seconds}).
     */
    public static NodePorts realPorts(NodeConfig config, WorkloadMetrics metrics) {
        Nqn host = HostNqn.loadOrCreate(config.hostNqnFile(), config.sysRoot());
        HostNqn.sharedWarning(host, config.hostNqnFile(), config.sysRoot()).ifPresent(LOG::warning);
        SysfsNvme sysfs = new SysfsNvme(config.sysRoot(), config.devRoot());
        KernelWait kernel = new KernelWait(config.kernelTimeout());
        return new NodePorts(config.nodeId(), host, new DeadlineMounter(new JnaMounter(config.mountinfo()), kernel),
                new DeadlineInitiator(new FabricsInitiator(config.fabricsDevice(), sysfs, host), kernel), sysfs,
                new FilesystemTools(new TimedProcessRunner(new SystemProcessRunner(), metrics)),
                new StageRecords(config.stateDir()), new KubeletPaths(config.kubeletDir()), config.attachTimeout(),
                NodePorts.kernelKeyring());
    }

    /** Starts the node's server over {@code ports}, with metrics of its own; the caller owns it. */
    public static WorkloadServer start(CsiEndpoint endpoint, NodePorts ports) {
        return start(endpoint, ports, WorkloadMetrics.create(WORKLOAD));
    }

    /**
     * Starts the node's server over {@code ports}, its calls and the node's meters in {@code metrics}
     * (served on the health port unless disabled; registered once, so one server per metrics); the
     * caller owns it.
     */
    public static WorkloadServer start(CsiEndpoint endpoint, NodePorts ports, WorkloadMetrics metrics) {
        IdentityService identity = new IdentityService(() -> Files.isWritable(ports.records().dir()));
        WorkloadServer.Builder builder = endpoint.serverBuilder().metrics(metrics)
                .readiness("node-state-dir", () -> Files.isWritable(ports.records().dir()));
        CsiServices.node(identity, new NodeGrpcService(ports, new VolumeLocks(), metrics)).forEach(builder::service);
        return builder.start();
    }
}
