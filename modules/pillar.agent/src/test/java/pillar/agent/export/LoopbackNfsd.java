package pillar.agent.export;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import pillar.launch.ChildProcess;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * nfsd and rpc.mountd serving in the VM guest for a kernel test that mounts over loopback: a tmpfs mounted at
 * {@code top} (one level below /) to export directories of, nfsd started with a 10 s grace unless it runs already
 * (a longer grace refuses every OPEN), and rpc.mountd by {@code dev/vm/nfs-mountd} over an exportable root.
 * {@link #close} stops what it started and unmounts the tmpfs.
 */
final class LoopbackNfsd implements AutoCloseable {
    private static final Path NFSD = Path.of("/proc/fs/nfsd");
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();

    private final Path top;
    private final boolean started;
    private final ChildProcess mountd;

    private LoopbackNfsd(Path top, boolean started, ChildProcess mountd) {
        this.top = top;
        this.started = started;
        this.mountd = mountd;
    }

    /** Serves directories below {@code top}; mountd logs into {@code logs}. */
    static LoopbackNfsd start(Path top, Path logs) throws IOException {
        Files.createDirectories(top);
        run("mount", "-t", "tmpfs", "-o", "size=16m", top.getFileName().toString(), top.toString());
        Files.createDirectories(Path.of("/var/lib/nfs/v4recovery"));
        boolean started = Files.readString(NFSD.resolve("threads")).strip().equals("0");
        if (started) {
            Files.writeString(NFSD.resolve("nfsv4gracetime"), "10\n"); // before nfsd starts: 90 s refuses every OPEN
            run("rpc.nfsd", "-N", "3", "-V", "4.2", "--no-udp", "2");
        }
        ChildProcess mountd = ChildProcess.start("rpc.mountd", List.of(nfsMountd().toString(), top.toString(), "-N", "2", "-N", "3",
                "--no-udp"), logs.resolve("rpc.mountd.log"));
        mountd.awaitReady(() -> succeeds("pgrep", "-x", "rpc.mountd"), Duration.ofSeconds(30), Duration.ofMillis(100));
        return new LoopbackNfsd(top, started, mountd);
    }

    /** Mounts {@code server:path} at {@code at} over loopback with the node's options and {@code extra} ("" for none). */
    static void mount(Path path, Path at, String extra) {
        run("mount", "-t", "nfs4", "-o", "vers=4.2,hard,addr=127.0.0.1,clientaddr=127.0.0.1" + (extra.isEmpty() ? "" : "," + extra),
                "127.0.0.1:" + path, at.toString());
    }

    static void run(String... argv) {
        RUNNER.run(Command.of(DEADLINE, argv));
    }

    static boolean succeeds(String... argv) {
        try {
            run(argv);
            return true;
        } catch (CommandFailedException failed) {
            return false;
        }
    }

    @Override
    public void close() {
        mountd.stop(Duration.ofSeconds(10));
        if (started) {
            succeeds("rpc.nfsd", "0");
        }
        succeeds("umount", top.toString());
    }

    /** {@code dev/vm/nfs-mountd} of the checkout, the nearest directory up from here that has it. */
    private static Path nfsMountd() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isExecutable(dir.resolve("dev/vm/nfs-mountd"))) {
                return dir.resolve("dev/vm/nfs-mountd");
            }
        }
        throw new IllegalStateException("no dev/vm/nfs-mountd above " + Path.of("").toAbsolutePath());
    }
}
