package pillar.node.nvme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import pillar.api.value.Nqn;

/**
 * The target side of the VM tier, by plain configfs writes (the agent's writer lives in another
 * module): one subsystem with one namespace on a block device, reachable by one host NQN through a
 * TCP port on loopback. Laid out and torn down in the order KERNEL-FACTS.md gives for kernel 6.1.
 */
public final class NvmetExport implements AutoCloseable {
    private static final Path NVMET = Path.of("/sys/kernel/config/nvmet");

    private final Nqn subsystem;
    private final Nqn host;
    private final int portId;
    private final Path subsystemDir;
    private final Path portDir;
    private final Path hostDir;

    /** Fails (never skips) unless this is the qemu VM with nvmet and the NVMe-oF initiator. */
    public static void requireKernel() {
        assertThat(System.getenv("PILLAR_KERNEL_VM"))
                .as("PILLAR_KERNEL_VM: the *KernelIT tier runs only inside the qemu VM; use dev/kernel-it")
                .isEqualTo("1");
        assertThat(NVMET).as("nvmet configfs (modules nvmet, nvmet-tcp)").isDirectory();
        assertThat(Path.of("/dev/nvme-fabrics")).as("the NVMe over Fabrics initiator (module nvme-tcp)").exists();
    }

    /** Exports {@code device} as namespace 1 of {@code subsystem} on 127.0.0.1:{@code trsvcid}, for {@code host} only. */
    public NvmetExport(Nqn subsystem, Path device, Nqn host, int portId, int trsvcid, boolean enabled) throws IOException {
        this(subsystem, device, host, portId, trsvcid, enabled, false);
    }

    /** The same on a port that admits TLS 1.3 connects only with {@code tls} (6.12: {@code addr_tsas}). */
    public NvmetExport(Nqn subsystem, Path device, Nqn host, int portId, int trsvcid, boolean enabled, boolean tls)
            throws IOException {
        this.subsystem = subsystem;
        this.host = host;
        this.portId = portId;
        this.subsystemDir = NVMET.resolve("subsystems").resolve(subsystem.value());
        this.portDir = NVMET.resolve("ports").resolve(String.valueOf(portId));
        this.hostDir = NVMET.resolve("hosts").resolve(host.value());
        Files.createDirectory(subsystemDir);
        write(subsystemDir.resolve("attr_allow_any_host"), "0");
        Path namespace = Files.createDirectory(subsystemDir.resolve("namespaces/1"));
        write(namespace.resolve("device_path"), device.toString());
        if (enabled) {
            write(namespace.resolve("enable"), "1");
        }
        if (!Files.exists(hostDir)) {
            Files.createDirectory(hostDir);
        }
        Files.createSymbolicLink(subsystemDir.resolve("allowed_hosts").resolve(host.value()), hostDir);
        if (!Files.exists(portDir)) {
            Files.createDirectory(portDir);
            write(portDir.resolve("addr_trtype"), "tcp");
            write(portDir.resolve("addr_adrfam"), "ipv4");
            write(portDir.resolve("addr_traddr"), "127.0.0.1");
            write(portDir.resolve("addr_trsvcid"), String.valueOf(trsvcid));
            if (tls) {
                write(portDir.resolve("addr_tsas"), "tls1.3");
            }
        }
        Files.createSymbolicLink(portDir.resolve("subsystems").resolve(subsystem.value()), subsystemDir);
    }

    /** Enables the namespace (a disabled one lets a host connect but shows no block device). */
    public void enable() throws IOException {
        write(subsystemDir.resolve("namespaces/1/enable"), "1");
    }

    /** Tells the target the backing device changed size; the host learns it by an AEN or a rescan. */
    public void revalidateSize() throws IOException {
        write(subsystemDir.resolve("namespaces/1/revalidate_size"), "1");
    }

    @Override
    public void close() throws IOException {
        Files.deleteIfExists(portDir.resolve("subsystems").resolve(subsystem.value()));
        if (Files.exists(subsystemDir)) {
            write(subsystemDir.resolve("namespaces/1/enable"), "0");
            Files.deleteIfExists(subsystemDir.resolve("namespaces/1"));
            Files.deleteIfExists(subsystemDir.resolve("allowed_hosts").resolve(host.value()));
            Files.deleteIfExists(subsystemDir);
        }
        if (Files.exists(portDir) && isEmpty(portDir.resolve("subsystems"))) {
            Files.deleteIfExists(portDir);
        }
        try {
            Files.deleteIfExists(hostDir);
        } catch (IOException stillAllowedElsewhere) {
            // another subsystem of the test still lists this host
        }
    }

    private static boolean isEmpty(Path dir) throws IOException {
        try (var entries = Files.list(dir)) {
            return entries.findAny().isEmpty();
        }
    }

    private static void write(Path attribute, String value) throws IOException {
        Files.writeString(attribute, value, StandardOpenOption.WRITE);
    }
}
