package pillar.node.service;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.grpc.ManagedChannel;
import pillar.api.csi.v1.NodeGetInfoRequest;
import pillar.api.csi.v1.NodeGrpc;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.runtime.server.Channels;
import pillar.runtime.server.CsiEndpoint;
import pillar.runtime.server.WorkloadServer;
import pillar.api.value.NodeId;
import pillar.api.value.Nqn;
import pillar.launch.ChildProcess;
import pillar.launch.WorkloadCommand;
import pillar.node.NodeMain;
import pillar.node.fs.FilesystemTools;
import pillar.node.fs.RecordingRunner;
import pillar.node.config.NodeConfig;
import pillar.node.mount.DeadlineMounter;
import pillar.node.mount.JnaMounter;
import pillar.node.nvme.DeadlineInitiator;
import pillar.node.nvme.FabricsInitiator;
import pillar.node.nvme.HostNqn;
import pillar.node.nvme.SysfsNvme;
import pillar.node.stage.StageRecords;
import pillar.node.sys.KernelWait;

/**
 * The VM tier's node: every adapter real ({@code /dev/nvme-fabrics}, {@code /sys}, {@code /dev},
 * mount(2), the tools), the kubelet and state directories and the host NQN file in a temporary
 * directory. Served in this JVM, or ({@link #startProcess}) as a separate {@code NodeMain} process
 * that a test can kill -9.
 */
final class KernelNode {
    static final Path SYS = Path.of("/sys");
    static final Path DEV = Path.of("/dev");

    final Path work;
    final Path kubelet;
    final Path state;
    final Path hostNqnFile;
    final Nqn host;
    final RecordingRunner tools = new RecordingRunner(new SystemProcessRunner());

    KernelNode(Path work) {
        this.work = work;
        this.kubelet = work.resolve("kubelet");
        this.state = work.resolve("state");
        this.hostNqnFile = work.resolve("etc/nvme/hostnqn");
        this.host = HostNqn.loadOrCreate(hostNqnFile);
        try {
            Files.createDirectories(kubelet);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The ports as {@code NodeMain.realPorts} builds them, the mounter and initiator behind the default deadline. */
    NodePorts ports(Duration attachTimeout) {
        SysfsNvme sysfs = new SysfsNvme(SYS, DEV);
        KernelWait kernel = new KernelWait(NodeConfig.DEFAULT_KERNEL_TIMEOUT);
        return new NodePorts(NodeId.of("vm-worker"), host,
                new DeadlineMounter(new JnaMounter(Path.of("/proc/self/mountinfo")), kernel),
                new DeadlineInitiator(new FabricsInitiator(DEV.resolve("nvme-fabrics"), sysfs, host), kernel), sysfs,
                new FilesystemTools(tools),
                new StageRecords(state), new KubeletPaths(kubelet), attachTimeout, NodePorts.kernelKeyring());
    }

    /** A node served in this JVM. */
    Served serve(String name) {
        Path socket = work.resolve(name + "/csi.sock");
        WorkloadServer server = NodeMain.start(new CsiEndpoint(socket, "127.0.0.1", 0), ports(Duration.ofSeconds(60)));
        return new Served(server, null, Channels.unix(socket));
    }

    /** A node in its own JVM, started as deployed ({@link WorkloadCommand}: its module path, its AOT cache when fresh), ready (it answered NodeGetInfo). */
    Served startProcess(String name, Duration attachTimeout) throws Exception {
        Path socket = work.resolve(name + "/csi.sock");
        List<String> command = new WorkloadCommand("pillar.node", "NodeMain", List.of(
                "--csi.socket=" + socket, "--health.host=127.0.0.1", "--health.port=0", "--node.id=vm-worker",
                "--node.state-dir=" + state, "--node.kubelet-dir=" + kubelet, "--node.hostnqn-file=" + hostNqnFile,
                "--node.attach-timeout=" + attachTimeout.toSeconds())).toList(Path.of("").toAbsolutePath());
        ChildProcess process = ChildProcess.start(name, command, work.resolve(name + ".log"));
        ManagedChannel[] channel = {null};
        try {
            // a JVM with Helidon and gRPC takes 1-2 minutes to serve under TCG, more when other VMs share the cores
            process.awaitReady(() -> answers(socket, channel), Duration.ofMinutes(6), Duration.ofMillis(200));
        } catch (RuntimeException e) {
            process.kill();
            throw e;
        }
        return new Served(null, process, channel[0]);
    }

    /** Whether a node serves on {@code socket} (NodeGetInfo answers); the channel is made once and kept. */
    private static boolean answers(Path socket, ManagedChannel[] channel) {
        if (!Files.exists(socket)) {
            return false;
        }
        channel[0] = channel[0] == null ? Channels.unix(socket) : channel[0];
        try {
            NodeGrpc.newBlockingStub(channel[0]).withDeadlineAfter(5, TimeUnit.SECONDS).nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
            return true;
        } catch (RuntimeException notYet) {
            return false; // listening soon
        }
    }

    /** A sparse file of {@code bytes} behind a new loop device. */
    Path loop(String name, long bytes) {
        Path file = work.resolve(name + ".img");
        setLength(file, bytes);
        return Path.of(run("losetup", "--find", "--show", file.toString()).strip());
    }

    /** Grows the file behind a loop device and tells the loop driver. */
    void grow(Path loop, String name, long bytes) {
        setLength(work.resolve(name + ".img"), bytes);
        run("losetup", "--set-capacity", loop.toString());
    }

    static String run(String... argv) {
        return new SystemProcessRunner().run(pillar.runtime.exec.Command.of(Duration.ofMinutes(2), argv)).stdout();
    }

    private static void setLength(Path file, long bytes) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A running node and a channel to it. */
    record Served(WorkloadServer server, ChildProcess process, ManagedChannel channel) implements AutoCloseable {
        NodeGrpc.NodeBlockingStub node() {
            return NodeGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.MINUTES);
        }

        /** SIGKILL, as a node crash. */
        void kill() {
            process.kill();
        }

        @Override
        public void close() throws InterruptedException {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            if (server != null) {
                server.close();
            }
            if (process != null) {
                process.stop(Duration.ofSeconds(30));
            }
        }
    }
}
