package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import pillar.agent.nfs.KernelNfsServer;
import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsFsid;
import pillar.agent.nfs.NfsServer;
import pillar.agent.nfs.NfsSquash;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;
import pillar.testkit.LoopbackNfsd;

/**
 * {@link NfsExporterContract} on the kernel's nfsd through {@link KernelNfsServer} ({@code exportfs}, the VM of
 * {@code dev/kernel-it}), as the agent runs it: nfsd's filesystem mounted (its module loaded), two directories
 * of a tmpfs of the test's own (exportable with the fsid the agent gives) exported to client addresses no
 * node has (no mount: seconds). Each test removes what it exported; the tmpfs goes at the end. One test mounts:
 * {@link #rootOnARootSquashedClientIsTheAnonymousUidWhileNoRootSquashLetsItWrite}.
 */
class NfsExporterKernelIT extends NfsExporterContract {
    private static final Path NFSD = Path.of("/proc/fs/nfsd");
    private static final Path TOP = Path.of("/run/pillar-export-contract");
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();

    private final KernelNfsServer server = new KernelNfsServer(RUNNER, DEADLINE, Path.of("/etc/exports"),
            Path.of("/var/lib/nfs/etab"), Path.of("/proc"));

    /** Fails on purpose anywhere but in the VM, so that a misconfigured CI cannot report a pass. */
    @BeforeAll
    static void bed() throws IOException {
        assertThat(System.getenv("PILLAR_KERNEL_VM"))
                .as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it").isEqualTo("1");
        run("modprobe", "nfsd");
        if (!Files.exists(NFSD.resolve("exports"))) {
            run("mount", "-t", "nfsd", "nfsd", NFSD.toString());
        }
        // exportfs reads and locks nfs-utils' state files, which the guest's fresh /var lacks
        Files.createDirectories(Path.of("/var/lib/nfs"));
        Files.writeString(Path.of("/var/lib/nfs/etab"), "");
        Files.writeString(Path.of("/var/lib/nfs/rmtab"), "");
        Files.createDirectories(TOP);
        run("mount", "-t", "tmpfs", "-o", "size=1m", "pillar-export-contract", TOP.toString());
        Files.createDirectories(TOP.resolve("contract-export-0"));
        Files.createDirectories(TOP.resolve("contract-export-1"));
    }

    @AfterAll
    static void unmount() {
        run("umount", TOP.toString());
    }

    private static void run(String... argv) {
        RUNNER.run(Command.of(DEADLINE, argv));
    }

    @Override
    protected NfsServer server() {
        return server;
    }

    @Override
    protected Path directory(int n) {
        return TOP.resolve("contract-export-" + n);
    }

    /**
     * Root squashing from outside: nfsd (10 s grace, unless it runs already) and rpc.mountd
     * ({@code dev/vm/nfs-mountd}) over a tmpfs of its own, two 0777 directories each holding a root-owned
     * 0644 file, one exported to 127.0.0.1 with root_squash and one with no_root_squash, both mounted over
     * loopback. Root (this test) creates a file through each mount and rewrites the root-owned one: on the
     * server, the squashed mount's new file is 65534's and its rewrite is refused (EACCES) with the file
     * unchanged; the other mount's new file is root's and its rewrite lands.
     */
    @Test
    void rootOnARootSquashedClientIsTheAnonymousUidWhileNoRootSquashLetsItWrite() throws Exception {
        NfsClient loopback = NfsClient.parse("client", "127.0.0.1");
        Path top = Path.of("/pillar-export-squash");
        try (LoopbackNfsd nfsd = LoopbackNfsd.start(top, stateDir)) {
            for (NfsSquash squash : NfsSquash.values()) {
                Path dir = Files.createDirectories(nfsd.top().resolve(squash.option()));
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
                Files.writeString(dir.resolve("root-file"), "by root on the server\n");
                Files.setPosixFilePermissions(dir.resolve("root-file"), PosixFilePermissions.fromString("rw-r--r--"));
                server.export(dir, loopback, NfsFsid.of(VolumeId.of("contract-squash-" + squash.ordinal())), NfsAccess.READ_WRITE, squash);
                Path mount = Files.createDirectories(stateDir.resolve("mnt-" + squash.option()));
                LoopbackNfsd.mount(dir, mount, "");
                try {
                    Files.writeString(mount.resolve("new-file"), "by root on the client\n");
                    boolean rewritten = writes(mount.resolve("root-file"), "rewritten by root on the client\n");

                    boolean squashed = squash == NfsSquash.ROOT_SQUASH;
                    assertThat(Files.getAttribute(dir.resolve("new-file"), "unix:uid")).as(squash + ": the new file's owner on the server")
                            .isEqualTo(squashed ? 65534 : 0);
                    assertThat(rewritten).as(squash + ": root rewrites a root-owned 0644 file").isEqualTo(!squashed);
                    assertThat(Files.readString(dir.resolve("root-file"))).as(squash + ": the file on the server")
                            .isEqualTo(squashed ? "by root on the server\n" : "rewritten by root on the client\n");
                } finally {
                    run("umount", mount.toString());
                    server.unexport(dir, loopback);
                }
            }
        }
    }

    /** Whether writing {@code text} over {@code file} succeeded; an access refusal is false, any other failure thrown. */
    private static boolean writes(Path file, String text) throws IOException {
        try {
            Files.writeString(file, text);
            return true;
        } catch (java.nio.file.AccessDeniedException refused) {
            return false;
        }
    }
}
