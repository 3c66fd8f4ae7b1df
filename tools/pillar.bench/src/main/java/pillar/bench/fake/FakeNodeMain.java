package pillar.bench.fake;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.helidon.logging.common.LogConfig;
import pillar.runtime.server.CsiEndpoint;
import pillar.api.value.ByteSize;
import pillar.api.value.NodeId;
import pillar.api.value.Nqn;
import pillar.bench.Args;
import pillar.runtime.metrics.TimedProcessRunner;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.node.NodeMain;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.fs.FilesystemTools;
import pillar.node.mount.FakeMounter;
import pillar.node.nvme.FakeInitiator;
import pillar.node.nvme.HostNqn;
import pillar.node.nvme.SysfsNvme;
import pillar.node.service.KubeletPaths;
import pillar.node.service.NodePorts;
import pillar.node.stage.StageRecords;

/**
 * The real pillar-node ({@link NodeMain#start}: CSI on a UNIX socket, durable stage records, the real
 * sysfs reader and per-volume locks) on the fakes of its tests: the fake initiator (sysfs and /dev as
 * files under {@code --root}, see {@link OfferingInitiator}), the fake mounter and the fake
 * filesystem tools. Started by the benchmarks as its own JVM, like the deployed node.
 *
 * <p>{@code --socket=PATH --health-port=H --root=DIR [--volume-bytes=B] [--metrics=false]} (metrics, with
 * the tools' commands timed, are served unless {@code --metrics=false}); the kubelet directory is
 * {@code ROOT/kubelet}. The node ID it answers is its host NQN (ROOT/hostnqn).
 */
public final class FakeNodeMain {
    private FakeNodeMain() {
    }

    public static void main(String[] arguments) throws IOException {
        LogConfig.configureRuntime();
        Args args = Args.parse(arguments);
        Path root = args.path("root");
        Path sys = root.resolve("sys");
        Path dev = root.resolve("dev");
        Path backings = root.resolve("backing");
        for (Path dir : new Path[] {sys, dev, backings, root.resolve("kubelet")}) {
            Files.createDirectories(dir);
        }
        Nqn host = HostNqn.loadOrCreate(root.resolve("hostnqn"));
        long volumeBytes = args.number("volume-bytes", ByteSize.GIB);
        WorkloadMetrics metrics = Boolean.parseBoolean(args.get("metrics", "true")) ? WorkloadMetrics.create("node")
                : WorkloadMetrics.disabled("node");
        NodePorts ports = new NodePorts(NodeId.of("bench-worker"), host, new FakeMounter(),
                new OfferingInitiator(new FakeInitiator(sys, dev, host), backings, volumeBytes), new SysfsNvme(sys, dev),
                new FilesystemTools(new TimedProcessRunner(new FakeProcessRunner(), metrics)), new StageRecords(root.resolve("state")),
                new KubeletPaths(root.resolve("kubelet")), Duration.ofSeconds(30), keyring(new pillar.testkit.FakeKeyring()));
        NodeMain.start(new CsiEndpoint(args.path("socket"), "127.0.0.1", args.integer("health-port")), ports, metrics);
        System.out.println("bench-node: ready; host NQN " + host);
    }

    /** The one keyring of the bench's node, whoever asks. */
    private static java.util.function.Supplier<pillar.runtime.keys.Keyring> keyring(pillar.testkit.FakeKeyring keys) {
        return () -> keys;
    }
}
