package pillar.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import pillar.launch.ChildProcess;
import pillar.runtime.exec.CommandFailedException;

/**
 * The VM tier's NFSv4.2 server on loopback, for kernel tests that mount: a tmpfs at {@code top} (one level below
 * /: the guest's overlay root cannot be exported), nfsd (v4.2 only, 10 s grace and lease, started unless it runs
 * already) and rpc.mountd by {@code dev/vm/nfs-mountd}. {@link #export} exports a new directory to 127.0.0.1;
 * {@link #close} unexports those, stops what it started and unmounts the tmpfs, even after a failed test, and
 * throws when any of it failed.
 */
public final class LoopbackNfsd implements AutoCloseable {
    private static final Path NFSD = Path.of("/proc/fs/nfsd");

    private final Path top;
    private final List<String> exported = new ArrayList<>();
    private ChildProcess mountd;
    private boolean topMounted;
    private boolean nfsdStarted;

    private LoopbackNfsd(Path top) {
        this.top = top;
    }

    /** Fails (never skips) unless this is the qemu VM. */
    public static void requireVm() {
        if (!"1".equals(System.getenv("PILLAR_KERNEL_VM"))) {
            throw new AssertionError("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it");
        }
    }

    /** Serves directories below {@code top}; mountd logs into {@code logs}. */
    public static LoopbackNfsd start(Path top, Path logs) {
        requireVm();
        LoopbackNfsd nfsd = new LoopbackNfsd(top);
        try {
            nfsd.startAll(logs);
            return nfsd;
        } catch (RuntimeException | Error e) {
            nfsd.close();
            throw e;
        }
    }

    private void startAll(Path logs) {
        Commands.run("modprobe", "-a", "nfsd", "nfsv4");
        if (!Files.isRegularFile(NFSD.resolve("versions"))) {
            Commands.run("mount", "-t", "nfsd", "nfsd", NFSD.toString());
        }
        boolean running;
        try {
            Files.createDirectories(top);
            Commands.run("mount", "-t", "tmpfs", "-o", "size=16m", top.getFileName().toString(), top.toString());
            topMounted = true;
            Files.createDirectories(Path.of("/var/lib/nfs/v4recovery"));
            // exportfs reads and locks nfs-utils' state files, which the guest's fresh /var lacks
            for (String table : List.of("etab", "rmtab")) {
                if (!Files.exists(Path.of("/var/lib/nfs", table))) {
                    Files.writeString(Path.of("/var/lib/nfs", table), "");
                }
            }
            running = !Files.readString(NFSD.resolve("threads")).strip().equals("0");
            if (!running) {
                // the default 90 s grace refuses every OPEN after a start; set before nfsd starts
                Files.writeString(NFSD.resolve("nfsv4gracetime"), "10\n");
                Files.writeString(NFSD.resolve("nfsv4leasetime"), "10\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!running) {
            Commands.run("rpc.nfsd", "-N", "3", "-V", "4.2", "--no-udp", "2");
            nfsdStarted = true;
        }
        mountd = ChildProcess.start("rpc.mountd", List.of(project().resolve("dev/vm/nfs-mountd").toString(),
                top.toString(), "-N", "2", "-N", "3", "--no-udp"), logs.resolve("rpc.mountd.log"));
        mountd.awaitReady(() -> Commands.succeeds("pgrep", "-x", "rpc.mountd"), Duration.ofSeconds(30), Duration.ofMillis(100));
    }

    /** Where the exported directories are. */
    public Path top() {
        return top;
    }

    /**
     * Exports {@code top/name}, a new directory, read-write to 127.0.0.1 with {@code extraOptions} (e.g.
     * {@code xprtsec=tls:mtls}; "" for none); returns its path on the server.
     */
    public String export(String name, String extraOptions) {
        Path dir = top.resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String client = "127.0.0.1:" + dir;
        Commands.run("exportfs", "-i", "-o", "rw,no_root_squash,no_subtree_check,sec=sys,fsid=" + (7001 + exported.size())
                + (extraOptions.isEmpty() ? "" : "," + extraOptions), client);
        exported.add(client);
        return dir.toString();
    }

    /** {@link #export(String, String)} with no extra option. */
    public String export(String name) {
        return export(name, "");
    }

    /** Mounts {@code 127.0.0.1:path} at {@code at} as a node does, with {@code extraOptions} ("" for none). */
    public static void mount(Path path, Path at, String extraOptions) {
        Commands.run("mount", "-t", "nfs4", "-o", "vers=4.2,hard,addr=127.0.0.1,clientaddr=127.0.0.1"
                + (extraOptions.isEmpty() ? "" : "," + extraOptions), "127.0.0.1:" + path, at.toString());
    }

    @Override
    public void close() {
        List<String> problems = new ArrayList<>();
        exported.forEach(client -> attempt(problems, "exportfs", "-u", client));
        if (mountd != null) {
            mountd.stop(Duration.ofSeconds(10));
        }
        if (nfsdStarted) {
            attempt(problems, "rpc.nfsd", "0");
        }
        if (topMounted) {
            attempt(problems, "umount", top.toString());
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("the loopback NFS server was not all removed: " + problems);
        }
    }

    private static void attempt(List<String> problems, String... argv) {
        try {
            Commands.run(argv);
        } catch (CommandFailedException e) {
            problems.add(e.getMessage());
        }
    }

    /** The checkout: the nearest directory up from here that has dev/vm/nfs-mountd. */
    private static Path project() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isExecutable(dir.resolve("dev/vm/nfs-mountd"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no dev/vm/nfs-mountd above " + Path.of("").toAbsolutePath());
    }
}
