package pillar.node.mount;

import static org.assertj.core.api.Assertions.assertThat;

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
 * The VM tier's NFSv4.2 server on loopback, for the node's NFS tests: nfsd (v4.2 only, 10 s grace and
 * lease) and rpc.mountd started by {@code dev/vm/nfs-mountd} over a tmpfs at {@link #TOP} (the guest's
 * overlay root cannot be exported), each {@linkplain #export exported directory} read-write to 127.0.0.1
 * only. {@link #close} unexports, stops mountd and nfsd and unmounts the tmpfs, even after a failed test.
 */
public final class LoopbackNfsd implements AutoCloseable {
    /** Where the exported directories are: a tmpfs one level below /, as dev/vm/nfs-mountd wants it. */
    public static final Path TOP = Path.of("/pillar-node-nfs");
    private static final Path NFSD = Path.of("/proc/fs/nfsd");

    private final List<String> exported = new ArrayList<>();
    private ChildProcess mountd;
    private boolean topMounted;
    private boolean nfsdStarted;

    private LoopbackNfsd() {
    }

    /** Fails (never skips) unless this is the qemu VM. */
    public static void requireKernel() {
        assertThat(System.getenv("PILLAR_KERNEL_VM"))
                .as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it").isEqualTo("1");
    }

    /** Starts the server; {@code logs} gets mountd's output. */
    public static LoopbackNfsd start(Path logs) {
        LoopbackNfsd nfsd = new LoopbackNfsd();
        try {
            nfsd.startAll(logs);
            return nfsd;
        } catch (RuntimeException | Error e) {
            nfsd.close();
            throw e;
        }
    }

    private void startAll(Path logs) {
        HostLoops.run("modprobe", "-a", "nfsd", "nfsv4");
        if (!Files.isRegularFile(NFSD.resolve("versions"))) {
            HostLoops.run("mount", "-t", "nfsd", "nfsd", NFSD.toString());
        }
        try {
            Files.createDirectories(TOP);
            HostLoops.run("mount", "-t", "tmpfs", "-o", "size=16m", "pillar-node-nfs", TOP.toString());
            topMounted = true;
            Files.createDirectories(Path.of("/var/lib/nfs/v4recovery"));
            // exportfs reads and locks nfs-utils' state files, which the guest's fresh /var lacks
            Files.writeString(Path.of("/var/lib/nfs/etab"), "");
            Files.writeString(Path.of("/var/lib/nfs/rmtab"), "");
            // the default 90 s grace refuses every OPEN after a start; set before nfsd starts
            Files.writeString(NFSD.resolve("nfsv4gracetime"), "10\n");
            Files.writeString(NFSD.resolve("nfsv4leasetime"), "10\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        HostLoops.run("rpc.nfsd", "-N", "3", "-V", "4.2", "--no-udp", "2");
        nfsdStarted = true;
        mountd = ChildProcess.start("rpc.mountd", List.of(project().resolve("dev/vm/nfs-mountd").toString(),
                TOP.toString(), "-N", "2", "-N", "3", "--no-udp"), logs.resolve("rpc.mountd.log"));
        mountd.awaitReady(LoopbackNfsd::mountdRuns, Duration.ofSeconds(30), Duration.ofMillis(100));
    }

    /** Exports {@code TOP/name}, a new directory, read-write to 127.0.0.1; returns its path on the server. */
    public String export(String name) {
        Path dir = TOP.resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String client = "127.0.0.1:" + dir;
        HostLoops.run("exportfs", "-i", "-o", "rw,no_root_squash,no_subtree_check,sec=sys,fsid=" + (7001 + exported.size()),
                client);
        exported.add(client);
        return dir.toString();
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
            attempt(problems, "umount", TOP.toString());
        }
        assertThat(problems).as("the loopback NFS server was not all removed").isEmpty();
    }

    private static void attempt(List<String> problems, String... argv) {
        try {
            HostLoops.run(argv);
        } catch (CommandFailedException e) {
            problems.add(e.getMessage());
        }
    }

    private static boolean mountdRuns() {
        try {
            HostLoops.run("pgrep", "-x", "rpc.mountd");
            return true;
        } catch (CommandFailedException notYet) {
            return false;
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
