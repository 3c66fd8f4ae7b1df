package pillar.agent.export;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.nfs.KernelNfsServer;
import pillar.agent.nfs.NfsServer;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.SystemProcessRunner;

/**
 * {@link NfsExporterContract} on the kernel's nfsd through {@link KernelNfsServer} ({@code exportfs}, the VM of
 * {@code dev/kernel-it}), as the agent runs it: nfsd's filesystem mounted (its module loaded), two directories
 * exported to client addresses no node has (no mount: seconds). Each test removes what it exported.
 */
class NfsExporterKernelIT extends NfsExporterContract {
    private static final Path NFSD = Path.of("/proc/fs/nfsd");
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final SystemProcessRunner RUNNER = new SystemProcessRunner();

    @TempDir
    static Path work;
    private static Path[] directories = new Path[2];

    private final KernelNfsServer server = new KernelNfsServer(RUNNER, DEADLINE, Path.of("/etc/exports"), Path.of("/proc"));

    /** Fails on purpose anywhere but in the VM, so that a misconfigured CI cannot report a pass. */
    @BeforeAll
    static void bed() throws IOException {
        assertThat(System.getenv("PILLAR_KERNEL_VM"))
                .as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it").isEqualTo("1");
        RUNNER.run(Command.of(DEADLINE, "modprobe", "nfsd"));
        if (!Files.exists(NFSD.resolve("exports"))) {
            RUNNER.run(Command.of(DEADLINE, "mount", "-t", "nfsd", "nfsd", NFSD.toString()));
        }
        directories[0] = Files.createDirectories(work.resolve("contract-export-0")).toRealPath();
        directories[1] = Files.createDirectories(work.resolve("contract-export-1")).toRealPath();
    }

    @Override
    protected NfsServer server() {
        return server;
    }

    @Override
    protected Path directory(int n) {
        return directories[n];
    }
}
