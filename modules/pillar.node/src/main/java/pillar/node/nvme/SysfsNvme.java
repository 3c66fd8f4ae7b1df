package pillar.node.nvme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import pillar.api.value.Nqn;

/**
 * Reads the kernel's NVMe state from sysfs ({@code <sys>/class/nvme}, {@code <sys>/class/nvme-subsystem},
 * {@code <sys>/block}) and the device directory, both roots passed in so a fake tree can stand in for them.
 *
 * <p>Block devices: with native multipath (Debian's default) {@code /sys/block} lists the head
 * {@code nvme<subsystem>n<ns>}, which has a {@code /dev} node, and hidden per-path nodes
 * {@code nvme<s>c<controller>n<ns>}, which have none; only heads are used. The head is numbered by
 * the subsystem instance, not the controller's. Its {@code device/subsysnqn} names the subsystem.
 *
 * <p>The one thing written here is a queue limit: {@link #capTransferSize} keeps every write command
 * to a namespace within what a Linux nvmet target accepts.
 */
public final class SysfsNvme {
    /** Head namespaces only: a name with 'c' in it is a per-path node. */
    private static final Pattern HEAD = Pattern.compile("nvme(0|[1-9][0-9]{0,5})n([1-9][0-9]{0,9})");
    private static final long SECTOR = 512;
    /**
     * The largest transfer, in KiB, that a Linux 6.12 nvmet-tcp target accepts in one command (8 MiB
     * is refused with "Data SGL Length Invalid"), while it advertises no MDTS; the 6.1 host's default
     * (1280) is below it.
     */
    public static final long MAX_TRANSFER_KIB = 4096;
    private static final Duration POLL = Duration.ofMillis(100);

    private final Path sys;
    private final Path dev;

    /** @param sys where sysfs is mounted ({@code /sys}); @param dev the device directory ({@code /dev}) */
    public SysfsNvme(Path sys, Path dev) {
        this.sys = sys;
        this.dev = dev;
    }

    /** A controller as sysfs shows it. {@code address} is parsed from {@code traddr=...,trsvcid=...}. */
    public record ControllerInfo(Controller controller, String subsysnqn, String transport, Map<String, String> address,
                                 String hostnqn, String state) {
        /** Whether this controller reaches {@code target} for {@code host}. */
        public boolean serves(FabricsTarget target, Nqn host) {
            return subsysnqn.equals(target.nqn().value()) && transport.equals(target.transport())
                    && target.traddr().equals(address.get("traddr"))
                    && String.valueOf(target.trsvcid()).equals(address.get("trsvcid"))
                    && hostnqn.equals(host.value());
        }

        /** Being torn down: not to be reused. */
        public boolean deleting() {
            return state.startsWith("deleting") || state.equals("dead");
        }
    }

    /** Every controller of this host. */
    public List<ControllerInfo> controllers() {
        List<ControllerInfo> out = new ArrayList<>();
        for (Path dir : list(sys.resolve("class/nvme"))) {
            String name = dir.getFileName().toString();
            if (Controller.isName(name)) {
                read(dir, Controller.parse(name)).ifPresent(out::add);
            }
        }
        return out;
    }

    /**
     * The controller reaching {@code target} for {@code host}, unless it is being deleted. Looked up
     * through the subsystem, not by reading every controller: one {@code subsysnqn} per subsystem in
     * {@code class/nvme-subsystem}, then the attributes of that subsystem's controllers alone (the
     * kernel links each of them there as {@code nvme<c>} when it connects, nvme_init_subsystem).
     */
    public Optional<ControllerInfo> controllerFor(FabricsTarget target, Nqn host) {
        boolean matched = false;
        boolean linked = false;
        for (Path subsystem : list(sys.resolve("class/nvme-subsystem"))) {
            if (readOptional(subsystem.resolve("subsysnqn")).filter(target.nqn().value()::equals).isEmpty()) {
                continue;
            }
            matched = true;
            for (Path link : list(subsystem)) {
                String name = link.getFileName().toString();
                if (!Controller.isName(name)) {
                    continue;
                }
                linked = true;
                Optional<ControllerInfo> found = controller(Controller.parse(name))
                        .filter(c -> c.serves(target, host) && !c.deleting());
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        if (matched && !linked) {
            // a subsystem of the target without controller links (a kernel that does not link them):
            // every controller's attributes, as before the lookup went through the subsystem
            return controllers().stream().filter(c -> c.serves(target, host) && !c.deleting()).findFirst();
        }
        return Optional.empty();
    }

    /**
     * {@link #controllerFor(FabricsTarget, Nqn)}, trying {@code remembered} first (the controller a stage
     * record holds) at the cost of one controller's attributes. A name is not an identity: the kernel
     * numbers controllers lowest free first, so after a reboot or a reconnect the name may belong to
     * another subsystem's controller; it counts only when its attributes say it reaches {@code target},
     * else the lookup runs.
     */
    public Optional<ControllerInfo> controllerFor(FabricsTarget target, Nqn host, Optional<Controller> remembered) {
        return remembered.flatMap(this::controller).filter(c -> c.serves(target, host) && !c.deleting())
                .or(() -> controllerFor(target, host));
    }

    /** The controller as sysfs shows it, or empty when it does not exist (or is going away). */
    public Optional<ControllerInfo> controller(Controller controller) {
        return read(controllerDir(controller), controller);
    }

    /** The controller's state ({@code live}, {@code connecting}, ...), or empty when it does not exist. */
    public Optional<String> state(Controller controller) {
        return readOptional(controllerDir(controller).resolve("state"));
    }

    public Path controllerDir(Controller controller) {
        return sys.resolve("class/nvme").resolve(controller.name());
    }

    /**
     * The head block device of {@code subsystem}'s namespace, once it has a device node. Several
     * namespaces in one subsystem are refused: pillar-csi exports one namespace per volume.
     */
    public Optional<Path> findHead(Nqn subsystem) {
        List<String> heads = new ArrayList<>();
        for (Path block : list(sys.resolve("block"))) {
            String name = block.getFileName().toString();
            if (HEAD.matcher(name).matches()
                    && readOptional(block.resolve("device/subsysnqn")).filter(subsystem.value()::equals).isPresent()) {
                heads.add(name);
            }
        }
        if (heads.size() > 1) {
            throw new InitiatorException("subsystem " + subsystem + " has " + heads.size() + " namespaces " + heads
                    + "; pillar-csi exports exactly one per volume");
        }
        return heads.stream().map(dev::resolve).filter(Files::exists).findFirst();
    }

    /** Waits, polling, until {@link #findHead} finds the device or the deadline passes. */
    public Optional<Path> awaitHead(Nqn subsystem, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<Path> head = findHead(subsystem);
            if (head.isPresent() || System.nanoTime() - deadline >= 0) {
                return head;
            }
            Thread.sleep(POLL);
        }
    }

    /**
     * Lowers {@code queue/max_sectors_kb} of the head {@code device} and of each of its per-path nodes
     * to {@link #MAX_TRANSFER_KIB} where it is higher, and returns the names it lowered. A 6.12 host
     * derives the limit from the namespace's optimal write size (a zvol reports 32 MiB), so without
     * this a large write to a zvol fails with EIO. The kernel keeps a written limit across rescans and
     * reconnects. Idempotent.
     *
     * @throws InitiatorException when a limit cannot be read or written
     */
    public List<String> capTransferSize(Path device) {
        String head = device.getFileName().toString();
        Matcher m = HEAD.matcher(head);
        if (!m.matches()) {
            throw new IllegalArgumentException("not an NVMe head namespace name: " + head);
        }
        Pattern path = Pattern.compile("nvme" + m.group(1) + "c(0|[1-9][0-9]{0,5})n" + m.group(2));
        List<String> lowered = new ArrayList<>();
        for (Path block : list(sys.resolve("block"))) {
            String name = block.getFileName().toString();
            if (!name.equals(head) && !path.matcher(name).matches()) {
                continue;
            }
            Path limit = block.resolve("queue/max_sectors_kb");
            String text = readOptional(limit).orElseThrow(() -> new InitiatorException("cannot read " + limit));
            long kib;
            try {
                kib = Long.parseLong(text);
            } catch (NumberFormatException e) {
                throw new InitiatorException(limit + " holds '" + text + "', not a size in KiB", e);
            }
            if (kib > MAX_TRANSFER_KIB) {
                try {
                    Files.writeString(limit, String.valueOf(MAX_TRANSFER_KIB));
                } catch (IOException e) {
                    throw new InitiatorException("cannot lower " + limit + " from " + kib + " to " + MAX_TRANSFER_KIB
                            + ": " + e.getMessage(), e);
                }
                lowered.add(name);
            }
        }
        return lowered;
    }

    /** The size in bytes the kernel currently sees for a block device of ours ({@code /sys/block/<name>/size}). */
    public long sizeBytes(Path device) {
        Path size = sys.resolve("block").resolve(device.getFileName().toString()).resolve("size");
        String text = readOptional(size).orElseThrow(() -> new InitiatorException("no such block device: " + size));
        try {
            return Math.multiplyExact(Long.parseLong(text), SECTOR);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new InitiatorException(size + " holds '" + text + "', not a sector count", e);
        }
    }

    /** The device node of a block device name found here. */
    public Path devNode(String blockName) {
        if (!HEAD.matcher(blockName).matches()) {
            throw new IllegalArgumentException("not an NVMe head namespace name: " + blockName);
        }
        return dev.resolve(blockName);
    }

    private Optional<ControllerInfo> read(Path dir, Controller controller) {
        Optional<String> subsysnqn = readOptional(dir.resolve("subsysnqn"));
        if (subsysnqn.isEmpty()) {
            return Optional.empty(); // went away while we looked
        }
        return Optional.of(new ControllerInfo(controller, subsysnqn.get(),
                readOptional(dir.resolve("transport")).orElse(""),
                parseAddress(readOptional(dir.resolve("address")).orElse("")),
                readOptional(dir.resolve("hostnqn")).orElse(""),
                readOptional(dir.resolve("state")).orElse("unknown")));
    }

    /** {@code traddr=10.0.0.5,trsvcid=4420[,src_addr=...]} as a map. */
    static Map<String, String> parseAddress(String address) {
        Map<String, String> out = new HashMap<>();
        for (String part : address.strip().split(",")) {
            int eq = part.indexOf('=');
            if (eq > 0) {
                out.put(part.substring(0, eq), part.substring(eq + 1));
            }
        }
        return out;
    }

    static Optional<String> readOptional(Path file) {
        try {
            return Optional.of(Files.readString(file).strip());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            // a controller being deleted answers ENODEV on its attributes
            return Optional.empty();
        }
    }

    /** The entries of {@code dir}, none when it does not exist or went away while listed (a deleted controller's). */
    private static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.sorted().toList();
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }
}
