package pillar.agent.configfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import pillar.api.value.Nqn;

/**
 * The NVMe/TCP initiator side of the kernel tests, without nvme-cli: {@code /dev/nvme-fabrics} to
 * connect, sysfs to find the block device and to disconnect. A stand-in for the tests only, until
 * {@code pillar.node} has the real Initiator.
 */
public final class FabricsInitiator {
    /** The answer of {@code /dev/nvme-fabrics} to a connect. */
    private static final Pattern CONNECTED = Pattern.compile("instance=(\\d+),cntlid=(\\d+)\\s*");
    /** Head (multipath) namespaces: nvme<subsystem instance>n<ns>. Per-path nodes (nvme0c1n1) differ. */
    private static final Pattern HEAD = Pattern.compile("nvme\\d+n\\d+");
    /** How long a controller whose delete_controller refused the write may take to vanish on its own. */
    private static final Duration REMOVAL_GRACE = Duration.ofSeconds(5);

    private final Path dev;
    private final Path sys;

    /** @param dev the device directory ({@code /dev}); @param sys where sysfs is mounted ({@code /sys}) */
    public FabricsInitiator(Path dev, Path sys) {
        this.dev = dev;
        this.sys = sys;
    }

    /** A connected controller: {@code /sys/class/nvme/nvme<instance>}. */
    public record Controller(int instance, int cntlid) {
        public String name() {
            return "nvme" + instance;
        }
    }

    /** Connects over TCP; returns once the controller is live (namespaces appear asynchronously). */
    public Controller connect(PortAddress address, Nqn subsystem, Nqn host) throws IOException {
        return connect(address, subsystem, host, "");
    }

    /**
     * Connects with more options ({@code ctrl_loss_tmo=5,reconnect_delay=1}...), comma-separated, and
     * a host ID of the host NQN's own, so that two host NQNs of this kernel are two hosts to the target.
     */
    public Controller connect(PortAddress address, Nqn subsystem, Nqn host, String more) throws IOException {
        String hostId = java.util.UUID.nameUUIDFromBytes(host.value().getBytes(StandardCharsets.UTF_8)).toString();
        String options = "transport=tcp,traddr=%s,trsvcid=%d,nqn=%s,hostnqn=%s,hostid=%s%s"
                .formatted(address.traddr(), address.trsvcid(), subsystem.value(), host.value(), hostId,
                        more.isEmpty() ? "" : "," + more);
        // One open file: the kernel answers the write on the same file.
        try (FileChannel fabrics = FileChannel.open(dev.resolve("nvme-fabrics"), StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ByteBuffer request = ByteBuffer.wrap(options.getBytes(StandardCharsets.US_ASCII));
            int written = fabrics.write(request);
            if (written != request.capacity()) {
                throw new IOException("short write to /dev/nvme-fabrics: " + written + " of " + request.capacity());
            }
            ByteBuffer answer = ByteBuffer.allocate(256);
            fabrics.read(answer);
            String line = new String(answer.array(), 0, answer.position(), StandardCharsets.US_ASCII);
            Matcher m = CONNECTED.matcher(line);
            if (!m.matches()) {
                throw new IOException("unexpected answer from /dev/nvme-fabrics: '" + line.strip() + "'");
            }
            return new Controller(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
        }
    }

    /**
     * Waits for the head block device of namespace {@code nsid} of {@code subsystem}: the entry of
     * {@code /sys/block} named {@code nvme<s>n<ns>} whose {@code device/subsysnqn} and {@code nsid}
     * match, with its {@code /dev} node.
     */
    public Path awaitHead(Nqn subsystem, NamespaceId nsid, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<Path> found = findHead(subsystem, nsid);
            if (found.isPresent()) {
                return found.get();
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("no block device for namespace " + nsid + " of " + subsystem + " within "
                        + timeout + "; /sys/block has " + list(sys.resolve("block")));
            }
            Thread.sleep(100);
        }
    }

    Optional<Path> findHead(Nqn subsystem, NamespaceId nsid) throws IOException {
        for (Path block : list(sys.resolve("block"))) {
            String name = block.getFileName().toString();
            if (!HEAD.matcher(name).matches()) {
                continue;
            }
            if (subsystem.value().equals(readOr(block.resolve("device/subsysnqn"), ""))
                    && nsid.dirName().equals(readOr(block.resolve("nsid"), ""))
                    && Files.exists(dev.resolve(name))) {
                return Optional.of(dev.resolve(name));
            }
        }
        return Optional.empty();
    }

    /** Size of a block device in bytes, from sysfs (512-byte sectors). */
    public long sizeOf(Path blockDevice) throws IOException {
        Path size = sys.resolve("block").resolve(blockDevice.getFileName().toString()).resolve("size");
        return Long.parseLong(Files.readString(size).strip()) * 512L;
    }

    /** The controllers connected to {@code subsystem}, e.g. for cleaning up after a failure. */
    public List<String> controllersOf(Nqn subsystem) throws IOException {
        List<String> names = new ArrayList<>();
        for (Path ctrl : list(sys.resolve("class/nvme"))) {
            if (subsystem.value().equals(readOr(ctrl.resolve("subsysnqn"), ""))) {
                names.add(ctrl.getFileName().toString());
            }
        }
        return names;
    }

    /** The controller's {@code state} and {@code cntlid} from sysfs; empty once the host has removed it. */
    public Optional<String[]> stateOf(String controller) {
        Path ctrl = sys.resolve("class/nvme").resolve(controller);
        String state = readOr(ctrl.resolve("state"), "");
        String cntlid = readOr(ctrl.resolve("cntlid"), "");
        return state.isEmpty() ? Optional.empty() : Optional.of(new String[] {state, cntlid});
    }

    /**
     * Disconnects (writes {@code delete_controller}) and waits until the controller is gone. A controller
     * the kernel is already removing (a dropped host's, after its reconnects) refuses the write (ENODEV
     * from sysfs): then it is only waited for.
     */
    public void disconnect(String controller, Duration timeout) throws IOException, InterruptedException {
        Path ctrl = sys.resolve("class/nvme").resolve(controller);
        if (!Files.exists(ctrl)) {
            return;
        }
        IOException refused = null;
        try {
            Files.writeString(ctrl.resolve("delete_controller"), "1", StandardOpenOption.WRITE);
        } catch (IOException e) {
            refused = e;
        }
        long deadline = System.nanoTime() + (refused == null ? timeout : REMOVAL_GRACE).toNanos();
        while (Files.exists(ctrl)) {
            if (System.nanoTime() > deadline) {
                if (refused != null) {
                    throw refused;
                }
                throw new IOException(ctrl + " still exists " + timeout + " after delete_controller");
            }
            Thread.sleep(50);
        }
    }

    static List<Path> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.sorted().toList();
        }
    }

    private static String readOr(Path file, String fallback) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            return fallback; // the device went away while we looked
        }
    }
}
