package pillar.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import pillar.launch.ChildProcess;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * The kernel NFS server of the VM for the sandbox and the NFS tests (docs/nfs.md's set-up): the ZFS
 * parent dataset {@value #PARENT} mounted at {@value #TOP} (one level below /, see dev/vm/nfs-mountd),
 * nfsd serving NFSv4.2 only with a 10 s grace and lease (set before it starts: fact 5), rpc.mountd
 * for NFSv4 only over dev/vm/nfs-mountd's exportable root, and one network namespace per node
 * identity on a veth pair, {@code 10.77.N.2} in the namespace and {@code 10.77.N.1} on the server's
 * side, each with its own NFSv4 client identifier (fact 6). The storage node's own address
 * {@value #STORAGE_ADDRESS} (a dummy interface) is what a PillarProtocol names: every namespace
 * reaches it through its link (its default route). Closing stops mountd and nfsd, removes every
 * export, the namespaces and the address; the pools are the caller's.
 */
final class NfsdBed implements AutoCloseable {
    /** The zfs-dataset backend's parent below the sandbox's pool. */
    static final String PARENT_NAME = "nfs";
    static final String PARENT = StoragePools.ZPOOL + "/" + PARENT_NAME;
    /** The agent's zfs-dataset backend over {@link #PARENT}, as examples/sandbox/nfs.yaml's store names it. */
    static final String AGENT_BACKEND = "tank-nfs";
    static final Path TOP = Path.of("/pillar-nfs");
    /** The storage node's address that every node identity reaches (PillarProtocol spec.nfs.serverAddress). */
    static final String STORAGE_ADDRESS = "10.77.0.1";
    private static final String STORAGE_LINK = "pillar-nfs";
    private static final Duration DEADLINE = Duration.ofMinutes(2);
    private static final Path NFSD = Path.of("/proc/fs/nfsd");

    /** One node identity: its namespace, its address, and the server's address on its link. */
    record NodeNet(String name, String clientAddress, String serverAddress) {
        Path netns() {
            return Path.of("/run/netns", name);
        }
    }

    private final SystemProcessRunner runner = new SystemProcessRunner();
    private final List<NodeNet> nodes = new ArrayList<>();
    private final List<String> made = new ArrayList<>();
    private ChildProcess mountd;
    private boolean nfsdStarted;
    private boolean parentMade;
    private boolean storageLinkMade;

    private NfsdBed() {
    }

    /**
     * Starts it for {@code names} (node identities a, b, ...), after {@code pools} exists; mountd's
     * output goes to {@code logs/rpc.mountd.log}. {@code project} holds dev/vm/nfs-mountd.
     */
    static NfsdBed start(Path project, Path logs, List<String> names) {
        NfsdBed bed = new NfsdBed();
        try {
            bed.startAll(project, logs, names);
            return bed;
        } catch (RuntimeException | Error e) {
            bed.close();
            throw e;
        }
    }

    private void startAll(Path project, Path logs, List<String> names) {
        for (String program : List.of("exportfs", "rpc.nfsd", "rpc.mountd")) {
            if (java.util.Arrays.stream(System.getenv("PATH").split(":")).noneMatch(d -> Files.isExecutable(Path.of(d, program)))) {
                throw new IllegalStateException(program + " is not on the guest's PATH (dev/vm/setup unpacks nfs-utils,"
                        + " dev/vm/guest-init copies it over /usr)");
            }
        }
        run("zfs", "create", "-o", "mountpoint=" + TOP, PARENT);
        parentMade = true;
        run("modprobe", "-a", "nfsd", "nfsv4");
        if (!Files.isRegularFile(NFSD.resolve("versions"))) {
            run("mount", "-t", "nfsd", "nfsd", NFSD.toString());
        }
        try {
            Files.createDirectories(Path.of("/var/lib/nfs/v4recovery"));
            Files.writeString(Path.of("/var/lib/nfs/etab"), "");
            Files.writeString(Path.of("/var/lib/nfs/rmtab"), "");
            // the default 90 s grace refuses every OPEN after a start; set before nfsd starts
            Files.writeString(NFSD.resolve("nfsv4gracetime"), "10\n");
            Files.writeString(NFSD.resolve("nfsv4leasetime"), "10\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        run("rpc.nfsd", "-N", "3", "-V", "4.2", "--no-udp", "4");
        nfsdStarted = true;
        made.add("nfsd: " + read(NFSD.resolve("versions")) + ", grace " + read(NFSD.resolve("nfsv4gracetime")) + " s");
        mountd = ChildProcess.start("rpc.mountd", List.of(project.resolve("dev/vm/nfs-mountd").toString(), TOP.toString(),
                "-N", "2", "-N", "3", "--no-udp"), logs.resolve("rpc.mountd.log"));
        mountd.awaitReady(NfsdBed::mountdRuns, Duration.ofSeconds(30), Duration.ofMillis(100));
        made.add("rpc.mountd (pid " + mountd.pid() + ") over dev/vm/nfs-mountd's root, " + TOP + " shared into it");
        run("ip", "link", "set", "lo", "up");
        run("ip", "link", "add", STORAGE_LINK, "type", "dummy");
        storageLinkMade = true;
        run("ip", "addr", "add", STORAGE_ADDRESS + "/32", "dev", STORAGE_LINK);
        run("ip", "link", "set", STORAGE_LINK, "up");
        made.add("the storage node's address " + STORAGE_ADDRESS + " (dummy interface " + STORAGE_LINK + ")");
        for (int i = 0; i < names.size(); i++) {
            NodeNet node = new NodeNet(names.get(i), "10.77." + (i + 1) + ".2", "10.77." + (i + 1) + ".1");
            addNode(node);
        }
    }

    private void addNode(NodeNet node) {
        String host = "h" + node.name();
        String guest = "g" + node.name();
        run("ip", "netns", "add", node.name());
        nodes.add(node);
        run("ip", "link", "add", host, "type", "veth", "peer", "name", guest);
        run("ip", "link", "set", guest, "netns", node.name());
        run("ip", "addr", "add", node.serverAddress() + "/24", "dev", host);
        run("ip", "link", "set", host, "up");
        inNetns(node, "ip", "addr", "add", node.clientAddress() + "/24", "dev", guest);
        inNetns(node, "ip", "link", "set", guest, "up");
        inNetns(node, "ip", "link", "set", "lo", "up");
        inNetns(node, "ip", "route", "add", "default", "via", node.serverAddress());
        // one host's namespaces share one NFSv4 client owner unless each has an identifier (fact 6);
        // ip netns exec mounts the namespace's own /sys, where the file is the namespace's
        try {
            Path id = Files.createTempFile("nfs-identifier-", "");
            Files.writeString(id, "pillar-nfs-" + node.name() + "\n");
            inNetns(node, "cp", id.toString(), "/sys/fs/nfs/net/nfs_client/identifier");
            Files.delete(id);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String identifier = inNetns(node, "cat", "/sys/fs/nfs/net/nfs_client/identifier").strip();
        if (!identifier.equals("pillar-nfs-" + node.name())) {
            throw new IllegalStateException("node " + node.name() + "'s NFS client identifier is '" + identifier + "'");
        }
        made.add("node " + node.name() + ": netns " + node.netns() + ", " + node.clientAddress() + " (link to the server "
                + node.serverAddress() + ", default route), NFS client identifier " + identifier);
    }

    /** The agent's {@code backends} entry (a YAML flow map) for the datasets below {@link #PARENT}. */
    static String agentBackend() {
        return "{name: " + AGENT_BACKEND + ", type: zfs-dataset, pool: " + StoragePools.ZPOOL + ", parent-dataset: "
                + PARENT_NAME + "}";
    }

    /** What was set up, one line each, for the output. */
    List<String> made() {
        return List.copyOf(made);
    }

    NodeNet node(String name) {
        return nodes.stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    /** {@code exportfs -v}: the kernel's current export table as nfs-utils lists it. */
    String exports() {
        return run("exportfs", "-v");
    }

    /** nfsd's NFSv4 clients: each one's address, status and the state it holds ({@code /proc/fs/nfsd/clients}). */
    String clients() {
        StringBuilder out = new StringBuilder();
        try (var ids = Files.list(NFSD.resolve("clients"))) {
            for (Path id : ids.sorted().toList()) {
                String info = read(id.resolve("info")).lines().filter(l -> l.startsWith("address:") || l.startsWith("status:"))
                        .map(String::strip).reduce((x, y) -> x + ", " + y).orElse("");
                long states = read(id.resolve("states")).lines().filter(l -> l.startsWith("- ")).count();
                out.append("client ").append(id.getFileName()).append(": ").append(info).append(", ").append(states)
                        .append(" states\n");
            }
        } catch (IOException | UncheckedIOException e) {
            out.append("cannot read ").append(NFSD.resolve("clients")).append(": ").append(e.getMessage()).append('\n');
        }
        return out.isEmpty() ? "no client\n" : out.toString();
    }

    /** The ids of nfsd's NFSv4 clients whose {@code address:} is {@code address} (any port), from /proc/fs/nfsd/clients. */
    static List<String> clientIds(String address) throws IOException {
        List<String> ids = new ArrayList<>();
        try (var listing = Files.list(NFSD.resolve("clients"))) {
            for (Path id : listing.sorted().toList()) {
                try {
                    if (Files.readString(id.resolve("info")).lines().anyMatch(l -> l.startsWith("address:")
                            && l.contains("\"" + address + ":"))) {
                        ids.add(id.getFileName().toString());
                    }
                } catch (IOException gone) {
                    // expired meanwhile
                }
            }
        }
        return ids;
    }

    /**
     * The NFSv4 state (opens, locks, delegations: one {@code - <stateid>: { type: ..., filename: ... }} line each) that
     * the clients at {@code address} hold in nfsd, from each one's {@code /proc/fs/nfsd/clients/<id>/states}.
     */
    static List<String> states(String address) throws IOException {
        List<String> states = new ArrayList<>();
        for (String id : clientIds(address)) {
            try {
                Files.readString(NFSD.resolve("clients").resolve(id).resolve("states")).lines().filter(l -> l.startsWith("- "))
                        .forEach(states::add);
            } catch (IOException gone) {
                // expired meanwhile
            }
        }
        return states;
    }

    /** {@code exportfs -ua}: every export removed, as a reboot or an nfs-server restart leaves nfsd. */
    void unexportAll() {
        run("exportfs", "-ua");
    }

    String run(String... argv) {
        return runner.run(new Command(List.of(argv), DEADLINE)).stdout();
    }

    private String inNetns(NodeNet node, String... argv) {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", node.name()));
        command.addAll(List.of(argv));
        return runner.run(new Command(command, DEADLINE)).stdout();
    }

    private static boolean mountdRuns() {
        try (var processes = Files.list(Path.of("/proc"))) {
            return processes.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).anyMatch(p -> {
                try {
                    return Files.readString(p.resolve("comm")).strip().equals("rpc.mountd");
                } catch (IOException gone) {
                    return false;
                }
            });
        } catch (IOException e) {
            return false;
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Stops mountd and nfsd, removes every export, the namespaces and the parent dataset; fails on what it could not. */
    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        if (nfsdStarted) {
            attempt(problems, "exportfs", "-ua");
            attempt(problems, "rpc.nfsd", "0");
        }
        if (mountd != null) {
            mountd.stop(Duration.ofSeconds(10));
        }
        for (NodeNet node : nodes.reversed()) {
            attempt(problems, "ip", "link", "del", "h" + node.name());
            attempt(problems, "ip", "netns", "del", node.name());
        }
        if (storageLinkMade) {
            attempt(problems, "ip", "link", "del", STORAGE_LINK);
        }
        if (parentMade) {
            attempt(problems, "zfs", "destroy", "-r", PARENT);
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the NFS bed was not all removed: " + problems);
        }
    }

    private void attempt(List<String> problems, String... argv) {
        try {
            run(argv);
        } catch (CommandFailedException e) {
            problems.add(e.getMessage());
        }
    }
}
