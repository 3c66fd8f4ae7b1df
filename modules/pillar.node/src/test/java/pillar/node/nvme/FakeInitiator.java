package pillar.node.nvme;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

import pillar.api.value.Nqn;
import pillar.node.sys.Hangs;

/**
 * An {@link Initiator} that does to a fake sysfs and /dev tree what the kernel does to the real
 * ones, so the node's real sysfs reader ({@link SysfsNvme}) finds what it would find on a host:
 *
 * <ul>
 *   <li>connect: {@code class/nvme/nvme<c>/} with {@code subsysnqn}, {@code address}
 *       ({@code traddr=..,trsvcid=..}), {@code transport}, {@code hostnqn}, {@code state} (live),
 *       {@code delete_controller}, {@code rescan_controller}; {@code class/nvme-subsystem/nvme-subsys<s>/};
 *       the head {@code block/nvme<s>n1/} (with {@code device} linking to the subsystem, {@code size} in
 *       sectors, {@code nsid}) and a hidden per-path {@code block/nvme<s>c<c>n1/}; the node
 *       {@code dev/nvme<s>n1}, a symbolic link to the export's backing file or device. The head is
 *       numbered by the subsystem, the controller separately, as the kernel does.</li>
 *   <li>a subsystem that {@linkplain #requireAuth requires authentication} refuses a host without a
 *       secret (ENOKEY) or with another one (EKEYREJECTED), as the kernel's connect fails;</li>
 *   <li>a second connect to the same subsystem, address and host reuses the controller;</li>
 *   <li>connecting to something not {@link #export exported} fails as the kernel does;</li>
 *   <li>disconnect removes the controller, and the namespace when no controller is left;</li>
 *   <li>the size the kernel shows changes only on {@link #rescan} (a missed change notification);</li>
 *   <li>each head and path has {@code queue/max_sectors_kb} as a 6.12 host sets it: 1280, or the
 *       namespace's {@linkplain #optimalWriteSize optimal write size} when larger (at most 32 MiB, the
 *       16-bit NOWS field), a limit a write keeps;</li>
 *   <li>connects are serialized, as the kernel serializes every write to {@code /dev/nvme-fabrics} under
 *       one mutex ({@code nvmf_dev_mutex}, held by {@code nvmf_dev_write} across {@code nvmf_create_ctrl}):
 *       a connect to a {@linkplain #hangConnectsTo hung} subsystem stays inside the call and holds up
 *       every other connect, until released;</li>
 *   <li>nothing else is host-wide, as in the kernel: a write to {@code delete_controller} deletes that
 *       controller in the writer's context under no global lock ({@code nvme_sysfs_delete},
 *       {@code nvme_delete_ctrl_sync}), and {@code rescan_controller} queues a scan; so a disconnect
 *       ({@linkplain #hangDisconnectsFrom hung} or not) holds up no connect and no other disconnect. One
 *       subsystem's controllers and namespaces change under that subsystem's lock (the kernel's
 *       {@code subsys->lock} and the subsystem's list of controllers), which decides when the last
 *       controller takes the namespace with it.</li>
 * </ul>
 */
public final class FakeInitiator implements Initiator {
    private final Path sys;
    private final Path dev;
    private final Nqn host;
    private final SysfsNvme sysfs;
    private final Map<String, Export> exports = new ConcurrentHashMap<>();
    private final Map<String, String[]> authKeys = new ConcurrentHashMap<>();
    private final Map<String, java.util.function.Function<Optional<FabricsTls>, Boolean>> tlsKeys = new ConcurrentHashMap<>();
    private final List<String> tlsOfConnects = new ArrayList<>();
    private volatile boolean tlsSupported = true;
    private final java.util.Map<String, String> admitted = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Integer> subsystemInstances = new ConcurrentHashMap<>();
    /** Per subsystem NQN: the kernel's subsys->lock. */
    private final Map<String, Object> subsystemLocks = new ConcurrentHashMap<>();
    private final Map<String, Long> optimalWriteSizes = new ConcurrentHashMap<>();
    private final List<String> calls = new ArrayList<>();
    private final Hangs hangs = new Hangs();
    private final Hangs disconnectHangs = new Hangs();
    /** The kernel's nvmf_dev_mutex: one connect at a time, uninterruptibly. */
    private final ReentrantLock fabricsDevice = new ReentrantLock();
    private final AtomicInteger nextController = new AtomicInteger();
    private final AtomicInteger nextSubsystem = new AtomicInteger();
    private CountDownLatch gate = new CountDownLatch(0);
    private CountDownLatch entered = new CountDownLatch(0);
    private volatile boolean namespacesAppear = true;

    /** A subsystem the fake target offers: its backing file or device and its current size. */
    public record Export(Nqn nqn, String traddr, int trsvcid, Path backing, LongSupplier size) {
    }

    public FakeInitiator(Path sys, Path dev, Nqn host) {
        this.sys = sys;
        this.dev = dev;
        this.host = host;
        this.sysfs = new SysfsNvme(sys, dev);
    }

    /** The target side: offer a subsystem at an address. */
    public void export(Export export) {
        exports.put(export.nqn().value(), export);
    }

    /**
     * The target side: {@code subsystem}'s namespace reports {@code bytes} as its optimal write size
     * (NOWS), as nvmet does from its backing device's {@code optimal_io_size} (a zvol: 32 MiB).
     */
    public void optimalWriteSize(Nqn subsystem, long bytes) {
        optimalWriteSizes.put(subsystem.value(), bytes);
    }

    /** A 6.12 host's default {@code max_sectors_kb}: the optimal write size above 1280 KiB, else 1280. */
    private long hostMaxSectorsKib(Nqn subsystem) {
        long optimalKib = Math.min(optimalWriteSizes.getOrDefault(subsystem.value(), 0L), 32L << 20) >> 10;
        return Math.max(1280, optimalKib);
    }

    /** Namespaces of later connects never show up (a target whose namespace is disabled). */
    public void namespacesAppear(boolean appear) {
        this.namespacesAppear = appear;
    }

    /**
     * Makes the next connects wait inside the initiator until the returned latch is counted down;
     * {@link #awaitEntered()} waits until one has arrived there.
     */
    public synchronized CountDownLatch holdConnects() {
        gate = new CountDownLatch(1);
        entered = new CountDownLatch(1);
        return gate;
    }

    public void awaitEntered() throws InterruptedException {
        entered.await();
    }

    /** From now on connects to {@code subsystem} hang in the "kernel" until the hang is released. */
    public Hangs.Hang hangConnectsTo(Nqn subsystem) {
        return hangs.on(subsystem);
    }

    /**
     * From now on disconnects of {@code subsystem}'s controllers hang in the "kernel" (a delete waiting
     * for its queues, say) until the hang is released.
     */
    public Hangs.Hang hangDisconnectsFrom(Nqn subsystem) {
        return disconnectHangs.on(subsystem);
    }

    /**
     * The target side: from now on {@code subsystem} admits only a host proving {@code hostKey} (and,
     * when the host asks, proving {@code controllerKey}, "" for none), as a target with DH-HMAC-CHAP does.
     */
    public void requireAuth(Nqn subsystem, String hostKey, String controllerKey) {
        authKeys.put(subsystem.value(), new String[] {hostKey, controllerKey});
    }

    /**
     * The target side: from now on {@code subsystem} admits only {@code host}; a connect as another host
     * NQN fails as 6.12's does: EIO ("Connect for subsystem ... is not allowed" in the host's log).
     */
    public void admitOnly(Nqn subsystem, Nqn host) {
        admitted.put(subsystem.value(), host.value());
    }

    /**
     * The target side: from now on {@code subsystem} admits TLS connects only, whose key ({@code tls_key}) the
     * host's keyring {@code keys} holds as {@code psk}: a plaintext connect is reset (ECONNRESET), a TLS one
     * with another key fails its handshake (EIO), as the kernel's do.
     */
    public void requireTls(Nqn subsystem, byte[] psk, java.util.function.IntFunction<Optional<byte[]>> keys) {
        tlsKeys.put(subsystem.value(), target -> target.map(t -> keys.apply(t.key()).filter(k -> java.util.Arrays.equals(k, psk))
                .isPresent()).orElse(false));
    }

    /** The host's kernel has no NVMe/TCP TLS (6.1): its fabrics options have no {@code tls}. */
    public FakeInitiator withoutTls() {
        tlsSupported = false;
        return this;
    }

    @Override
    public boolean tlsSupported() {
        return tlsSupported;
    }

    /** The TLS key each connect named, in order ("" for a plaintext connect). */
    public synchronized List<String> tlsOfConnects() {
        return List.copyOf(tlsOfConnects);
    }

    @Override
    public Controller connect(FabricsTarget target, Optional<FabricsAuth> auth, Optional<FabricsTls> tls) {
        fabricsDevice.lock();
        try {
            synchronized (this) {
                tlsOfConnects.add(tls.map(t -> t.keyring() + "/" + t.key()).orElse(""));
            }
            return connectHoldingTheDevice(target, auth, tls);
        } finally {
            fabricsDevice.unlock();
        }
    }

    private Controller connectHoldingTheDevice(FabricsTarget target, Optional<FabricsAuth> auth, Optional<FabricsTls> tls) {
        CountDownLatch g;
        synchronized (this) {
            calls.add("connect " + target.describe());
            g = gate;
            entered.countDown();
        }
        try {
            g.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InitiatorException("interrupted");
        }
        hangs.pass(target.nqn());
        synchronized (subsystemLock(target.nqn().value())) {
            Optional<Controller> existing = existing(target);
            if (existing.isPresent()) {
                return existing.get();
            }
            Export export = exports.get(target.nqn().value());
            if (export == null || !export.traddr().equals(target.traddr()) || export.trsvcid() != target.trsvcid()) {
                throw new InitiatorException("connecting to " + target.describe() + " failed: ECONNREFUSED ("
                        + FabricsInitiator.hint(pillar.node.sys.Errno.ECONNREFUSED) + ")");
            }
            String only = admitted.get(target.nqn().value());
            if (only != null && !only.equals(target.hostOr(host).value())) {
                throw new InitiatorException("connecting to " + target.describe() + " failed: EIO ("
                        + FabricsInitiator.hint(pillar.node.sys.Errno.EIO) + "; the kernel log says more)");
            }
            java.util.function.Function<Optional<FabricsTls>, Boolean> handshake = tlsKeys.get(target.nqn().value());
            if (handshake != null && tls.isEmpty()) {
                throw new InitiatorException("connecting to " + target.describe() + " failed: ECONNRESET (the port requires TLS)");
            }
            if (handshake != null && !handshake.apply(tls)) {
                throw new InitiatorException("connecting to " + target.describe() + " failed: EIO ("
                        + FabricsInitiator.hint(pillar.node.sys.Errno.EIO) + "; the kernel log says more)");
            }
            String[] keys = authKeys.get(target.nqn().value());
            if (keys != null) {
                pillar.node.sys.Errno refused = auth.isEmpty() ? pillar.node.sys.Errno.ENOKEY
                        : !auth.get().hostSecret().value().equals(keys[0])
                                || auth.get().controllerSecret().filter(c -> !c.value().equals(keys[1])).isPresent()
                                ? pillar.node.sys.Errno.EKEYREJECTED : null;
                if (refused != null) {
                    throw new InitiatorException("connecting to " + target.describe() + " failed: " + refused + " ("
                            + FabricsInitiator.hint(refused) + "; the kernel log says more)");
                }
            }
            return create(target, export);
        }
    }

    @Override
    public void disconnect(Controller controller) {
        synchronized (this) {
            calls.add("disconnect " + controller);
        }
        Path dir = sysfs.controllerDir(controller);
        Optional<String> nqn = SysfsNvme.readOptional(dir.resolve("subsysnqn"));
        if (nqn.isEmpty()) {
            return;
        }
        disconnectHangs.pass(Nqn.of(nqn.get()));
        synchronized (subsystemLock(nqn.get())) {
            if (!Files.exists(dir)) {
                return; // another writer of delete_controller got there first
            }
            int s = subsystemInstances.get(nqn.get());
            Path subsystem = sys.resolve("class/nvme-subsystem/nvme-subsys" + s);
            delete(subsystem.resolve(controller.name()));
            delete(dir);
            delete(sys.resolve("block/nvme" + s + "c" + controller.instance() + "n1"));
            boolean othersLeft;
            try (Stream<Path> entries = Files.list(subsystem)) {
                othersLeft = entries.anyMatch(e -> Controller.isName(e.getFileName().toString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (!othersLeft) {
                delete(sys.resolve("block/nvme" + s + "n1"));
                delete(dev.resolve("nvme" + s + "n1"));
                delete(subsystem);
            }
        }
    }

    @Override
    public void rescan(Controller controller) {
        synchronized (this) {
            calls.add("rescan " + controller);
        }
        Optional<String> nqn = SysfsNvme.readOptional(sysfs.controllerDir(controller).resolve("subsysnqn"));
        if (nqn.isEmpty()) {
            throw new InitiatorException("cannot rescan " + controller + ": no such controller");
        }
        synchronized (subsystemLock(nqn.get())) {
            Export export = exports.get(nqn.get());
            write(sys.resolve("block/nvme" + subsystemInstances.get(nqn.get()) + "n1/size"),
                    String.valueOf(export.size().getAsLong() / 512));
        }
    }

    /** Sets a controller's state, e.g. {@code connecting} while the target is unreachable. */
    public void state(Controller controller, String state) {
        write(sysfs.controllerDir(controller).resolve("state"), state);
    }

    /** The calls so far, e.g. {@code "connect nqn... at tcp:127.0.0.1:4420"}, {@code "disconnect nvme0"}. */
    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    public synchronized long count(String prefix) {
        return calls.stream().filter(c -> c.startsWith(prefix)).count();
    }

    /**
     * A live controller of {@code target}'s subsystem reaching it for this host: the subsystem's own
     * controllers are looked at, as the kernel walks its list, never every controller of the host.
     */
    private Optional<Controller> existing(FabricsTarget target) {
        Integer s = subsystemInstances.get(target.nqn().value());
        if (s == null) {
            return Optional.empty();
        }
        try (Stream<Path> links = Files.list(sys.resolve("class/nvme-subsystem/nvme-subsys" + s))) {
            return links.map(l -> l.getFileName().toString()).filter(Controller::isName).map(Controller::parse)
                    .flatMap(c -> sysfs.controller(c).stream()).filter(c -> c.serves(target, target.hostOr(host)) && !c.deleting())
                    .map(SysfsNvme.ControllerInfo::controller).findFirst();
        } catch (java.nio.file.NoSuchFileException e) {
            return Optional.empty(); // its last controller was disconnected
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Object subsystemLock(String nqn) {
        return subsystemLocks.computeIfAbsent(nqn, n -> new Object());
    }

    /** Called holding the fabrics device and the subsystem's lock. */
    private Controller create(FabricsTarget target, Export export) {
        Controller controller = new Controller(nextController.getAndIncrement());
        int s = subsystemInstances.computeIfAbsent(target.nqn().value(), n -> nextSubsystem.getAndIncrement());
        Path ctrl = sysfs.controllerDir(controller);
        write(ctrl.resolve("subsysnqn"), target.nqn().value());
        write(ctrl.resolve("address"), "traddr=" + target.traddr() + ",trsvcid=" + target.trsvcid());
        write(ctrl.resolve("transport"), target.transport());
        write(ctrl.resolve("hostnqn"), target.hostOr(host).value()); // the publication's own NQN, as hostnqn= gives
        write(ctrl.resolve("state"), "live");
        write(ctrl.resolve("ctrl_loss_tmo"), String.valueOf(target.ctrlLossTmo()));
        write(ctrl.resolve("reconnect_delay"), String.valueOf(target.reconnectDelay()));
        write(ctrl.resolve("delete_controller"), "");
        write(ctrl.resolve("rescan_controller"), "");
        Path subsystem = sys.resolve("class/nvme-subsystem/nvme-subsys" + s);
        write(subsystem.resolve("subsysnqn"), target.nqn().value());
        link(subsystem.resolve(controller.name()), ctrl);
        if (!namespacesAppear) {
            return controller;
        }
        String sectors = String.valueOf(export.size().getAsLong() / 512);
        Path head = sys.resolve("block/nvme" + s + "n1");
        if (!Files.exists(head)) {
            write(head.resolve("size"), sectors);
            write(head.resolve("nsid"), "1");
            write(head.resolve("queue/max_sectors_kb"), String.valueOf(hostMaxSectorsKib(target.nqn())));
            link(head.resolve("device"), subsystem);
            link(dev.resolve("nvme" + s + "n1"), export.backing());
        }
        Path path = sys.resolve("block/nvme" + s + "c" + controller.instance() + "n1");
        write(path.resolve("size"), sectors);
        write(path.resolve("queue/max_sectors_kb"), String.valueOf(hostMaxSectorsKib(target.nqn())));
        link(path.resolve("device"), ctrl);
        return controller;
    }

    private static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void link(Path link, Path target) {
        try {
            Files.createDirectories(link.getParent());
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, target);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a file, a link (not what it points to) or a directory tree; idempotent. */
    private static void delete(Path dir) {
        if (Files.isSymbolicLink(dir)) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // already gone
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
