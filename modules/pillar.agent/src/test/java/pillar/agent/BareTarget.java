package pillar.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The configfs steps of an export done directly with java.nio, no agent in between: the "bare"
 * side of {@link AgentCallTimingVmBench}. The same mkdirs, writes and links, in the same order, as
 * the agent makes for a fresh export on a port of its own, with nothing read first or back.
 */
final class BareTarget {
    private final Path nvmet;
    private final String port;
    private final String traddr;
    private final int trsvcid;

    BareTarget(Path configfs, String port, String traddr, int trsvcid) {
        this.nvmet = configfs.resolve("nvmet");
        this.port = port;
        this.traddr = traddr;
        this.trsvcid = trsvcid;
    }

    /** Subsystem, namespace 1 on the device, enabled; the port and its address; the port link. */
    void export(String nqn, Path device) throws IOException {
        Path subsystem = Files.createDirectory(nvmet.resolve("subsystems").resolve(nqn));
        write(subsystem.resolve("attr_allow_any_host"), "0");
        Path namespace = Files.createDirectory(subsystem.resolve("namespaces/1"));
        write(namespace.resolve("device_path"), device.toString());
        write(namespace.resolve("enable"), "1");
        Path portDir = Files.createDirectory(nvmet.resolve("ports").resolve(port));
        write(portDir.resolve("addr_trtype"), "tcp");
        write(portDir.resolve("addr_adrfam"), "ipv4");
        write(portDir.resolve("addr_traddr"), traddr);
        write(portDir.resolve("addr_trsvcid"), Integer.toString(trsvcid));
        Files.createSymbolicLink(portDir.resolve("subsystems").resolve(nqn), subsystem);
    }

    /** The host entry and the subsystem's link to it. */
    void allow(String nqn, String host) throws IOException {
        Path hostDir = Files.createDirectory(nvmet.resolve("hosts").resolve(host));
        Files.createSymbolicLink(nvmet.resolve("subsystems").resolve(nqn).resolve("allowed_hosts").resolve(host), hostDir);
    }

    void revalidate(String nqn) throws IOException {
        write(nvmet.resolve("subsystems").resolve(nqn).resolve("namespaces/1/revalidate_size"), "1");
    }

    /** Everything {@link #export} and {@link #allow} made, in the kernel's teardown order. */
    void unexport(String nqn, String host) throws IOException {
        Path subsystem = nvmet.resolve("subsystems").resolve(nqn);
        Files.delete(nvmet.resolve("ports").resolve(port).resolve("subsystems").resolve(nqn));
        write(subsystem.resolve("namespaces/1/enable"), "0");
        Files.delete(subsystem.resolve("namespaces/1"));
        Files.delete(subsystem.resolve("allowed_hosts").resolve(host));
        Files.delete(subsystem);
        Files.delete(nvmet.resolve("ports").resolve(port));
        Files.delete(nvmet.resolve("hosts").resolve(host));
    }

    private static void write(Path attribute, String value) throws IOException {
        Files.writeString(attribute, value, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }
}
