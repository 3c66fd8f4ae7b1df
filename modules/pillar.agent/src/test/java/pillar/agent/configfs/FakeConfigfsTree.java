package pillar.agent.configfs;

import static pillar.agent.configfs.KernelError.Code.EACCES;
import static pillar.agent.configfs.KernelError.Code.EBUSY;
import static pillar.agent.configfs.KernelError.Code.EEXIST;
import static pillar.agent.configfs.KernelError.Code.EISDIR;
import static pillar.agent.configfs.KernelError.Code.ENAMETOOLONG;
import static pillar.agent.configfs.KernelError.Code.ENOENT;
import static pillar.agent.configfs.KernelError.Code.ENOTDIR;
import static pillar.agent.configfs.KernelError.Code.ENOTEMPTY;
import static pillar.agent.configfs.KernelError.Code.EPERM;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import pillar.agent.configfs.FakeNvmet.Attribute;
import pillar.agent.configfs.FakeNvmet.Item;
import pillar.api.value.Nqn;
import pillar.runtime.keys.KeyringException;
import pillar.runtime.metrics.WorkloadMetrics;
import pillar.testkit.FakeKeyring;

/**
 * A configfs mount with nvmet loaded, in memory, that answers the adapter's calls as kernel 6.1 does:
 * mkdir makes the item's attribute files and default groups with the kernel's first values; attributes
 * accept and refuse what nvmet does; links are checked and counted as configfs does them (rmdir of a
 * linked item: EBUSY; of an item that holds links or made directories: ENOTEMPTY; of a default group:
 * EPERM); errors reach the caller as the exceptions java.nio throws on Linux for each error number (see
 * {@link ConfigfsTree}). What nvmet itself does is in {@link FakeNvmet}; {@link ConfigfsTreeKernelIT}
 * runs the same contract ({@link ConfigfsTreeContract}) on the real kernel.
 *
 * <p>Beyond the kernel: block devices and local addresses are declared ({@link #addBlockDevice},
 * {@link #addLocalAddress}); {@link #readsBack} makes an attribute show another value than the one
 * written (a kernel that "disagrees"); {@link #journal()} lists every changing call in order, and
 * {@link #dump()} the whole tree, to show what was touched. A path outside the mount is a bug in the
 * caller and throws {@link IllegalStateException}; a relative symlink target is resolved from the
 * process's working directory, never inside configfs (ENOENT), as the kernel does.
 *
 * <p>Thread-safe (one lock), so it can stand behind concurrent agent calls.
 */
public final class FakeConfigfsTree implements ConfigfsTree {
    /** Where the fake is "mounted": not a real path, so that nothing real is ever touched by mistake. */
    public static final Path DEFAULT_ROOT = Path.of("/fake/sys/kernel/config");
    private static final int NAME_MAX = 255;

    /** A directory: an item made by mkdir, or a default group the kernel made with its parent. */
    private static final class Group {
        final String name;
        final Group parent;
        final boolean isDefault;
        final Item item;
        final Map<String, Object> children = new TreeMap<>(); // Group, Attr or Link
        final List<Link> incoming = new ArrayList<>();

        Group(String name, Group parent, boolean isDefault, Item item) {
            this.name = name;
            this.parent = parent;
            this.isDefault = isDefault;
            this.item = item;
            item.attributes().forEach((n, a) -> children.put(n, new Attr(n, a)));
            item.defaultGroups().forEach((n, i) -> children.put(n, new Group(n, this, true, i)));
        }
    }

    private record Attr(String name, Attribute attribute) {
    }

    private record Link(String name, Group parent, Group target) {
    }

    private final Path root;
    private final Group mount; // null when configfs is not mounted
    private final FakeNvmet nvmet;
    private final FakeKeyring keys = new FakeKeyring();
    private final Map<Path, String> disagreements = new HashMap<>();
    private final List<String> journal = new ArrayList<>();

    private FakeConfigfsTree(Path root, boolean mounted, boolean nvmetLoaded) {
        this(root, mounted, nvmetLoaded, false);
    }

    private FakeConfigfsTree(Path root, boolean mounted, boolean nvmetLoaded, boolean auth) {
        this.root = root.toAbsolutePath().normalize();
        this.nvmet = new FakeNvmet(1, auth);
        this.mount = mounted ? new Group("", null, true, new Item() {
        }) : null;
        if (mounted && nvmetLoaded) {
            mount.children.put("nvmet", new Group("nvmet", mount, true, nvmet.root()));
        }
    }

    /** configfs mounted at {@link #DEFAULT_ROOT} with nvmet (and nvmet-tcp) loaded. */
    public static FakeConfigfsTree create() {
        return new FakeConfigfsTree(DEFAULT_ROOT, true, true);
    }

    /** {@link #create()} on a kernel with nvmet authentication (DH-HMAC-CHAP, as Debian's 6.12). */
    public static FakeConfigfsTree createWithAuth() {
        return new FakeConfigfsTree(DEFAULT_ROOT, true, true, true);
    }

    /** configfs mounted but the nvmet modules not loaded: no {@code nvmet/} directory. */
    public static FakeConfigfsTree withoutNvmet() {
        return new FakeConfigfsTree(DEFAULT_ROOT, true, false);
    }

    /** Nothing mounted: the mount point does not exist. */
    public static FakeConfigfsTree unmounted() {
        return new FakeConfigfsTree(DEFAULT_ROOT, false, false);
    }

    /** The adapter, on this tree. */
    public ConfigfsNvmetTarget target() {
        return new ConfigfsNvmetTarget(root, this, this::tlsKeys);
    }

    /** The kernel's {@code .nvme} keyring: there on a kernel with TLS ports (6.12), none on another. */
    public FakeKeyring tlsKeys() {
        if (!nvmet.tls()) {
            throw new KeyringException("the kernel has no .nvme keyring (the fake of a kernel without NVMe/TCP TLS)");
        }
        return keys;
    }

    /** The adapter on this tree with every call timed into {@code metrics}, as the agent's on the kernel's tree. */
    public ConfigfsNvmetTarget target(WorkloadMetrics metrics) {
        return new ConfigfsNvmetTarget(root, new TimedConfigfsTree(this, metrics), this::tlsKeys);
    }

    public Path root() {
        return root;
    }

    /** {@code <root>/nvmet/<relative>}. */
    public Path nvmet(String relative) {
        return root.resolve("nvmet").resolve(relative);
    }

    /** Declares a block device namespaces can be enabled on; others give ENOENT, as a missing one does. */
    public synchronized FakeConfigfsTree addBlockDevice(Path device) {
        nvmet.addBlockDevice(device);
        return this;
    }

    /** Declares an address of this host (127.0.0.1 and ::1 are): ports may listen there, not elsewhere. */
    public synchronized FakeConfigfsTree addLocalAddress(String address) {
        nvmet.addLocalAddress(address);
        return this;
    }

    /**
     * A host connects to the subsystem at {@code address} (see {@link FakeNvmetControllers}): the
     * controller, or an {@link IOException} when the target refuses it.
     */
    synchronized FakeNvmetControllers.Controller connect(PortAddress address, Nqn subsystem, Nqn host)
            throws IOException {
        return connect(address, subsystem, host, "", "");
    }

    /** {@link #connect(PortAddress, Nqn, Nqn)} presenting DH-HMAC-CHAP secrets ("" none). */
    synchronized FakeNvmetControllers.Controller connect(PortAddress address, Nqn subsystem, Nqn host,
                                                         String hostSecret, String controllerSecret) throws IOException {
        Object found;
        try {
            found = lookup(nvmet("subsystems").resolve(subsystem.value()), true);
        } catch (KernelError e) {
            throw new IOException("connect to " + subsystem + " refused: no such subsystem", e);
        }
        if (!(found instanceof Group group) || !(group.item instanceof FakeNvmetSubsystems.Subsystem target)) {
            throw new IOException("connect to " + subsystem + " refused: not a subsystem");
        }
        InetAddress ip;
        try {
            ip = address.traddr().contains(":") ? KernelParsers.ipv6(address.traddr()) : KernelParsers.ipv4(address.traddr());
        } catch (KernelError e) {
            throw new IllegalArgumentException(address.toString(), e);
        }
        return nvmet.controllers().connect(host.value(), target, ip, address.trsvcid(), hostSecret, controllerSecret);
    }

    /** The controller's state as its host sees it now: {@code live} or {@code connecting}. */
    synchronized String state(FakeNvmetControllers.Controller controller) {
        return nvmet.controllers().state(controller);
    }

    /** The host sends a request on the controller, which the (slow) device holds; refused unless it is live. */
    synchronized void send(FakeNvmetControllers.Controller controller) throws IOException {
        nvmet.controllers().send(controller);
    }

    /** The controller's requests the device has not completed yet. */
    synchronized int unfinished(FakeNvmetControllers.Controller controller) {
        return nvmet.controllers().unfinished(controller);
    }

    /** The host deletes the controller. */
    synchronized void disconnect(FakeNvmetControllers.Controller controller) {
        nvmet.controllers().disconnect(controller);
    }

    /** From now on the attribute shows {@code shown}, whatever is written to it: the kernel "disagrees". */
    public synchronized void readsBack(Path attribute, String shown) {
        disagreements.put(attribute.toAbsolutePath().normalize(), shown);
    }

    /**
     * Every changing call so far, in order, relative to {@code nvmet/}: {@code mkdir subsystems/x},
     * {@code write subsystems/x/attr_allow_any_host 0}, {@code symlink ports/1/subsystems/x -> subsystems/x},
     * {@code unlink ...}, {@code rmdir ...}; a refused call ends with its error, e.g. {@code : EEXIST}.
     */
    public synchronized List<String> journal() {
        // the capability probe's host entry is made and removed at once: it changes nothing
        return journal.stream().filter(line -> !line.contains("hosts/" + ConfigfsNvmetTarget.AUTH_PROBE_HOST)).toList();
    }

    /** The calls of {@link #journal()} that changed something (not refused). */
    public synchronized List<String> changes() {
        return journal().stream().filter(line -> !line.contains(": E")).toList();
    }

    /** The shown value of an attribute under {@code nvmet/}, without the newline; empty when absent. */
    public synchronized Optional<String> value(String relative) {
        try {
            return Optional.of(ConfigfsFiles.stripNewline(read(nvmet(relative))));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The names in a directory under {@code nvmet/}, sorted; empty when absent. */
    public synchronized List<String> entries(String relative) {
        try {
            return list(nvmet(relative)).stream().map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The whole tree, one line per entry with attribute values and link targets, to compare before and after. */
    public synchronized String dump() {
        StringBuilder out = new StringBuilder();
        if (mount != null) {
            dump(mount, "", out);
        }
        return out.toString();
    }

    private void dump(Group group, String prefix, StringBuilder out) {
        for (Object child : group.children.values()) {
            switch (child) {
                case Group g -> {
                    out.append(prefix).append(g.name).append("/\n");
                    dump(g, prefix + g.name + "/", out);
                }
                case Attr a -> out.append(prefix).append(a.name()).append(" = ")
                        .append(a.attribute().show() == null ? "(write-only)" : a.attribute().show().text()).append('\n');
                case Link l -> out.append(prefix).append(l.name()).append(" -> ").append(pathOf(l.target())).append('\n');
                default -> throw new IllegalStateException();
            }
        }
    }

    // ---- the system calls ------------------------------------------------------------------------------------

    @Override
    public synchronized Kind kind(Path path) {
        try {
            return switch (lookup(path, false)) {
                case Group g -> Kind.DIRECTORY;
                case Attr a -> Kind.ATTRIBUTE;
                default -> Kind.LINK;
            };
        } catch (KernelError e) {
            return Kind.ABSENT;
        }
    }

    @Override
    public synchronized String read(Path attribute) throws IOException {
        Object node = open(attribute);
        if (node instanceof Group) {
            throw new KernelError(EISDIR).onData();
        }
        Attribute a = ((Attr) node).attribute();
        if (a.show() == null) {
            throw new KernelError(EACCES).onPath(attribute); // configfs refuses to open it for reading
        }
        String shown = disagreements.getOrDefault(attribute.toAbsolutePath().normalize(), a.show().text());
        return shown + "\n";
    }

    @Override
    public synchronized void write(Path attribute, String value) throws IOException {
        Object node = open(attribute);
        if (node instanceof Group) {
            throw new KernelError(EISDIR).onPath(attribute);
        }
        if (value.isEmpty()) {
            return; // no write(2), so no store
        }
        String line = "write " + relative(attribute) + " " + value.replace("\n", "\\n");
        try {
            ((Attr) node).attribute().store().store(value);
            journal.add(line);
        } catch (KernelError e) {
            journal.add(line + ": " + e.code);
            throw e.onData();
        }
    }

    @Override
    public synchronized void mkdir(Path dir) throws IOException {
        String line = "mkdir " + relative(dir);
        try {
            Group parent = parentOf(dir);
            String name = nameOf(dir);
            if (parent.children.containsKey(name)) {
                throw new KernelError(EEXIST);
            }
            parent.children.put(name, new Group(name, parent, false, parent.item.make(name)));
            journal.add(line);
        } catch (KernelError e) {
            journal.add(line + ": " + e.code);
            throw e.onPath(dir);
        }
    }

    @Override
    public synchronized void rmdir(Path dir) throws IOException {
        String line = "rmdir " + relative(dir);
        try {
            if (!(lookup(dir, false) instanceof Group group)) {
                throw new KernelError(ENOTDIR);
            }
            if (group.isDefault) {
                throw new KernelError(EPERM);
            }
            detachPrep(group);
            group.parent.children.remove(group.name);
            group.item.release();
            journal.add(line);
        } catch (KernelError e) {
            journal.add(line + ": " + e.code);
            throw e.onRmdir(dir);
        }
    }

    /** configfs_detach_prep: refused while links point at it or at a default group of it, or it holds anything but attributes and default groups. */
    private static void detachPrep(Group group) throws KernelError {
        if (!group.incoming.isEmpty()) {
            throw new KernelError(EBUSY);
        }
        for (Object child : group.children.values()) {
            if (child instanceof Group g && g.isDefault) {
                detachPrep(g);
            } else if (!(child instanceof Attr)) {
                throw new KernelError(ENOTEMPTY);
            }
        }
    }

    @Override
    public synchronized void symlink(Path link, Path target) throws IOException {
        String line = "symlink " + relative(link) + " -> " + (target.startsWith(root) ? relative(target) : target);
        try {
            Group parent = parentOf(link);
            String name = nameOf(link);
            if (parent.children.containsKey(name)) {
                throw new KernelError(EEXIST);
            }
            if (!parent.item.acceptsLinks()) {
                throw new KernelError(EPERM);
            }
            Group resolved = linkTarget(target);
            parent.item.allowLink(resolved.item);
            Link created = new Link(name, parent, resolved);
            parent.children.put(name, created);
            resolved.incoming.add(created);
            journal.add(line);
        } catch (KernelError e) {
            journal.add(line + ": " + e.code);
            throw e.onPath(link);
        }
    }

    /** get_target: the directory the path names, following links; it must be in this configfs. */
    private Group linkTarget(Path target) throws KernelError {
        if (!target.isAbsolute()) {
            throw new KernelError(ENOENT); // resolved from the working directory, which is not in configfs
        }
        Path normal = target.normalize();
        if (!normal.startsWith(root)) {
            if (Files.isDirectory(normal)) {
                throw new KernelError(EPERM); // another file system
            }
            throw new KernelError(Files.exists(normal) ? ENOTDIR : ENOENT);
        }
        if (!(lookup(normal, true) instanceof Group group)) {
            throw new KernelError(ENOTDIR);
        }
        return group;
    }

    @Override
    public synchronized Path readlink(Path link) throws IOException {
        try {
            if (!(lookup(link, false) instanceof Link l)) {
                throw new NotLinkException(link.toString());
            }
            // configfs_get_target_path: up from the link's directory to the configfs root, then down
            int depth = root.relativize(pathOf(l.parent())).getNameCount();
            return Path.of("../".repeat(depth) + root.relativize(pathOf(l.target())));
        } catch (KernelError e) {
            throw e.onPath(link);
        }
    }

    @Override
    public synchronized void unlink(Path link) throws IOException {
        String line = "unlink " + relative(link);
        try {
            switch (lookup(link, false)) {
                case Group g -> throw new KernelError(EISDIR);
                case Attr a -> throw new KernelError(EPERM);
                case Link l -> {
                    l.parent().children.remove(l.name());
                    l.target().incoming.remove(l);
                    l.parent().item.dropLink(l.target().item);
                }
                default -> throw new IllegalStateException();
            }
            journal.add(line);
        } catch (KernelError e) {
            journal.add(line + ": " + e.code);
            throw e.onPath(link);
        }
    }

    @Override
    public synchronized List<Path> list(Path dir) throws IOException {
        try {
            if (!(lookup(dir, true) instanceof Group group)) {
                throw new NotDirectoryException(dir.toString());
            }
            return group.children.keySet().stream().map(dir::resolve).toList();
        } catch (KernelError e) {
            throw e.onPath(dir);
        }
    }

    /** A path of the mount, while mounted: anything from the mount point down, existing or not. */
    @Override
    public synchronized boolean isConfigfs(Path path) {
        return mount != null && relativeToRoot(path) != null;
    }

    // ---- paths -----------------------------------------------------------------------------------------------

    /** open(2) of an existing entry (never created), following links. */
    private Object open(Path path) throws IOException {
        try {
            return lookup(path, true);
        } catch (KernelError e) {
            throw e.onPath(path);
        }
    }

    /** The entry at {@code path}: links on the way are followed, a final one only when asked. */
    private Object lookup(Path path, boolean followLast) throws KernelError {
        Path rel = relativeToRoot(path);
        if (mount == null) {
            throw new KernelError(ENOENT);
        }
        Object node = mount;
        int count = rel.toString().isEmpty() ? 0 : rel.getNameCount();
        for (int i = 0; i < count; i++) {
            if (node instanceof Link l) {
                node = l.target();
            }
            if (!(node instanceof Group group)) {
                throw new KernelError(ENOTDIR);
            }
            String name = rel.getName(i).toString();
            if (name.getBytes(StandardCharsets.UTF_8).length > NAME_MAX) {
                throw new KernelError(ENAMETOOLONG);
            }
            node = group.children.get(name);
            if (node == null) {
                throw new KernelError(ENOENT);
            }
        }
        return followLast && node instanceof Link l ? l.target() : node;
    }

    private Group parentOf(Path path) throws KernelError {
        if (relativeToRoot(path).toString().isEmpty()) {
            throw new KernelError(EEXIST); // the mount point itself
        }
        if (!(lookup(path.getParent(), true) instanceof Group parent)) {
            throw new KernelError(ENOTDIR);
        }
        return parent;
    }

    private static String nameOf(Path path) throws KernelError {
        String name = path.getFileName().toString();
        if (name.getBytes(StandardCharsets.UTF_8).length > NAME_MAX) {
            throw new KernelError(ENAMETOOLONG);
        }
        return name;
    }

    private Path relativeToRoot(Path path) {
        Path normal = path.toAbsolutePath().normalize();
        if (!normal.startsWith(root)) {
            throw new IllegalStateException(path + " is outside the configfs mount " + root
                    + ": the adapter must never go there");
        }
        return root.relativize(normal);
    }

    private String relative(Path path) {
        Path rel = relativeToRoot(path);
        return rel.startsWith("nvmet") && rel.getNameCount() > 1 ? rel.subpath(1, rel.getNameCount()).toString() : rel.toString();
    }

    private Path pathOf(Group group) {
        List<String> names = new ArrayList<>();
        for (Group g = group; g != mount; g = g.parent) {
            names.addFirst(g.name);
        }
        return names.isEmpty() ? root : root.resolve(String.join("/", names));
    }
}
