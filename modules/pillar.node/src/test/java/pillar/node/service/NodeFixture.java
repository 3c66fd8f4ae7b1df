package pillar.node.service;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import pillar.api.context.PublishContext;
import pillar.api.csi.v1.NodeGrpc;
import pillar.runtime.exec.ProcessRunner;
import pillar.runtime.metrics.TimedProcessRunner;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.runtime.server.Channels;
import pillar.runtime.server.CsiEndpoint;
import pillar.runtime.server.WorkloadServer;
import pillar.api.value.NodeId;
import pillar.api.value.Nqn;
import pillar.node.NodeMain;
import pillar.node.fs.FakeProcessRunner;
import pillar.node.fs.FilesystemTools;
import pillar.node.mount.DeadlineMounter;
import pillar.node.mount.FakeMounter;
import pillar.node.mount.Mounter;
import pillar.node.nvme.DeadlineInitiator;
import pillar.node.nvme.FakeInitiator;
import pillar.node.nvme.SysfsNvme;
import pillar.node.stage.StageRecords;
import pillar.node.sys.KernelWait;

/**
 * A pillar-node served over a real UNIX socket by {@link NodeMain#start}, called through a real gRPC
 * stub, on a temporary tree: kubelet directory, state directory, and fake sysfs and /dev written by
 * a {@link FakeInitiator}. The mounter and the process runner are the caller's: fakes for the fake
 * tier, the real ones for the host tier. {@link #restart()} replaces the service (a new process
 * over the same state directory and the same "kernel").
 *
 * <p>The fake tier declares one with {@link #fake} as a {@code @RegisterExtension} field: it starts
 * before each test (before the test's own {@code @BeforeEach}) and closes after it. A fixture built
 * with a constructor is started already and closed by its caller.
 */
final class NodeFixture implements BeforeEachCallback, AfterEachCallback, AutoCloseable {
    static final Nqn HOST = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555");
    static final String TRADDR = "127.0.0.1";
    static final int PORT = 4420;
    static final long GIB = 1L << 30;

    /** Makes the backing of an export: a file for the fake tier, a loop device for the host tier. */
    interface Backing {
        /** A backing device of {@code bytes} for {@code volume}, and how to read its current size. */
        Map.Entry<Path, LongSupplier> create(String volume, long bytes);
    }

    final Path root;
    final Path kubelet;
    final Path state;
    final Mounter mounter;
    final FakeInitiator initiator;
    /** The node's keyring of TLS keys. */
    final pillar.testkit.FakeKeyring tlsKeys = new pillar.testkit.FakeKeyring();
    final ProcessRunner runner;
    private final Backing backing;
    private final Map<String, Path> backings = new HashMap<>();
    private final Duration attachTimeout;
    private final Duration kernelTimeout;
    /** Whether {@link #close} deletes {@link #root} (it made it). */
    private final boolean ownsRoot;
    /** The deadline of the running service's mounter and initiator. */
    KernelWait kernel;
    /** The running service's metrics, fresh at each start. */
    private WorkloadMetrics metrics;
    private WorkloadServer server;
    private ManagedChannel channel;
    NodeGrpc.NodeBlockingStub node;

    NodeFixture(Path root, Mounter mounter, ProcessRunner runner, Backing backing, Duration attachTimeout) {
        this(root, mounter, runner, backing, attachTimeout, Duration.ofSeconds(30));
    }

    /** @param kernelTimeout the deadline of each mounter and initiator call, as {@code node.kernel-timeout} */
    NodeFixture(Path root, Mounter mounter, ProcessRunner runner, Backing backing, Duration attachTimeout,
                Duration kernelTimeout) {
        this(root, false, mounter, runner, backing, attachTimeout, kernelTimeout);
        start();
    }

    private NodeFixture(Path root, boolean ownsRoot, Mounter mounter, ProcessRunner runner, Backing backing,
                        Duration attachTimeout, Duration kernelTimeout) {
        this.ownsRoot = ownsRoot;
        this.kernelTimeout = kernelTimeout;
        this.root = root;
        this.kubelet = root.resolve("kubelet");
        this.state = root.resolve("state");
        this.mounter = mounter;
        this.runner = runner;
        this.backing = backing;
        this.attachTimeout = attachTimeout;
        this.initiator = new FakeInitiator(root.resolve("sys"), root.resolve("dev"), HOST);
        try {
            Files.createDirectories(kubelet);
            Files.createDirectories(root.resolve("dev"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The fake tier's node, for a {@code @RegisterExtension} field: on a fresh temporary root (deleted
     * on close) with those fakes, sparse-file backings under {@code backing/}, and 30 s per kernel call.
     */
    static NodeFixture fake(FakeMounter mounter, FakeProcessRunner tools, Duration attachTimeout) {
        return fake(mounter, tools, attachTimeout, Duration.ofSeconds(30));
    }

    /** As above, with that deadline on each mounter and initiator call. */
    static NodeFixture fake(FakeMounter mounter, FakeProcessRunner tools, Duration attachTimeout, Duration kernelTimeout) {
        Path root;
        try {
            root = Files.createTempDirectory("pillar-node-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new NodeFixture(root, true, mounter, tools, sparseFiles(root.resolve("backing")), attachTimeout, kernelTimeout);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    /** A fixture whose backings are sparse files (the fake tier: nothing is really formatted or mounted). */
    static Backing sparseFiles(Path dir) {
        return (volume, bytes) -> {
            Path file = dir.resolve(volume + ".img");
            try {
                Files.createDirectories(dir);
                try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                    f.setLength(bytes);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Map.entry(file, () -> {
                try {
                    return Files.size(file);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        };
    }

    /**
     * The ports as {@code NodeMain.realPorts} builds them: the mounter and initiator behind a fresh
     * deadline, the tools timed into {@link #metrics}.
     */
    private NodePorts ports() {
        SysfsNvme sysfs = new SysfsNvme(root.resolve("sys"), root.resolve("dev"));
        kernel = new KernelWait(kernelTimeout);
        return new NodePorts(NodeId.of("worker-1"), HOST, new DeadlineMounter(mounter, kernel),
                new DeadlineInitiator(initiator, kernel), sysfs, new FilesystemTools(new TimedProcessRunner(runner, metrics)),
                new StageRecords(state), new KubeletPaths(kubelet), attachTimeout, () -> tlsKeys);
    }

    private void start() {
        if (server != null) {
            throw new IllegalStateException("the node service is already running");
        }
        Path socket = root.resolve("csi/csi.sock");
        metrics = WorkloadMetrics.create("node");
        server = NodeMain.start(new CsiEndpoint(socket, "127.0.0.1", 0), ports(), metrics);
        channel = Channels.unix(socket);
        node = NodeGrpc.newBlockingStub(channel);
    }

    /** Stops the service and starts a new one over the same state directory and kernel state. */
    void restart() {
        stop();
        start();
    }

    /** What the running service's health port answers at {@code /metrics}. */
    String scrape() {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create("http://127.0.0.1:" + server.healthPort()
                    + WorkloadMetrics.PATH).toURL().openConnection();
            try {
                if (connection.getResponseCode() != 200) {
                    throw new IllegalStateException(WorkloadMetrics.PATH + " answered " + connection.getResponseCode());
                }
                return new String(connection.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                connection.disconnect();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Offers a volume on the fake target and returns the publish context the controller would send. */
    Map<String, String> export(String volume, long bytes) {
        Map.Entry<Path, LongSupplier> made = backing.create(volume, bytes);
        backings.put(volume, made.getKey());
        Nqn nqn = nqn(volume);
        initiator.export(new FakeInitiator.Export(nqn, TRADDR, PORT, made.getKey(), made.getValue()));
        Map<String, String> context = new HashMap<>();
        context.put(PublishContext.NQN, nqn.value());
        context.put(PublishContext.TRANSPORT, "tcp");
        context.put(PublishContext.TRADDR, TRADDR);
        context.put(PublishContext.TRSVCID, String.valueOf(PORT));
        context.put(PublishContext.CTRL_LOSS_TMO, "30");
        return context;
    }

    /** The file or loop device behind a volume's namespace. */
    Path backingOf(String volume) {
        return backings.get(volume);
    }

    static Nqn nqn(String volume) {
        return Nqn.of("nqn.2024-01.io.pillar-csi:" + volume);
    }

    Path staging(String volume) {
        return dir(kubelet.resolve("plugins/kubernetes.io/csi/pillar.csi.io").resolve(volume)).resolve("globalmount");
    }

    /** A pod's target path; its parent exists, as the CO guarantees. */
    Path target(String volume, String pod) {
        return dir(kubelet.resolve("pods").resolve(pod).resolve("volumes/kubernetes.io~csi").resolve(volume))
                .resolve("mount");
    }

    Path recordFile(String volume) {
        return state.resolve(volume + ".stage");
    }

    /** The gRPC code a call answers with; OK when it succeeds. */
    static Status.Code code(Runnable call) {
        try {
            call.run();
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    private static Path dir(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void stop() {
        if (server == null) {
            return;
        }
        try {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.close();
        server = null;
    }

    /** Stops the service (if it runs) and deletes the root the fixture made. */
    @Override
    public void close() {
        stop();
        if (ownsRoot && Files.exists(root)) {
            try (Stream<Path> tree = Files.walk(root)) {
                for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
