package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import pillar.agent.nfs.KernelNfsServer;
import pillar.agent.nfs.NfsServer;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * {@link NfsExporterContract} on the kernel's nfsd through {@link KernelNfsServer} ({@code exportfs}, the VM of
 * {@code dev/kernel-it}), as the agent runs it: nfsd's filesystem mounted (its module loaded), two directories
 * of a tmpfs of the test's own (exportable with the fsid the agent gives) exported to client addresses no
 * node has (no mount: seconds). Each test removes what it exported; the tmpfs goes at the end.
 */
class NfsExporterKernelIT extends NfsExporterContract {
    private static final Path NFSD = Path.of("/proc/fs/nfsd");
    private static final Path TOP = Path.of("/run/pillar-export-contract");
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();

    private final KernelNfsServer server = new KernelNfsServer(RUNNER, DEADLINE, Path.of("/etc/exports"), Path.of("/proc"));

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
}
