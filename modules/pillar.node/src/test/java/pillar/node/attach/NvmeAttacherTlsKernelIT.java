package pillar.node.attach;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;
import pillar.api.value.TlsPsk;
import pillar.node.mount.HostLoops;
import pillar.node.nvme.FabricsInitiator;
import pillar.node.nvme.FabricsTarget;
import pillar.node.nvme.HostNqn;
import pillar.node.nvme.NvmetExport;
import pillar.node.nvme.SysfsNvme;
import pillar.node.service.NodePorts;
import pillar.runtime.keys.KernelKeyring;
import pillar.runtime.keys.Keyring;
import pillar.testkit.Tlshd;

/**
 * The node's side of NVMe/TCP TLS on the 6.12 kernel in the VM ({@code dev/kernel-it --kernel 6.12}), with
 * {@code tlshd}: {@link NvmeAttacher} puts the publication's key into the node's own keyring and connects over
 * TLS to a port that admits nothing else (its key in the kernel's {@code .nvme}, as the agent puts it), the
 * namespace reads back what was written, and the detach removes the key; another key under the same
 * identity is refused by the handshake. Fails (never skips) on a kernel without TLS.
 */
class NvmeAttacherTlsKernelIT {
    private static final Path SYS = Path.of("/sys");
    private static final Path DEV = Path.of("/dev");
    private static final Nqn EXPORTED = Nqn.of("nqn.2024-01.io.pillar-csi:kit-attach-tls");
    private static final int PORT_ID = 9;
    private static final int TRSVCID = 4429;

    @TempDir
    static Path daemon;
    private static Tlshd tlshd;

    @TempDir
    Path work;
    private final SysfsNvme sysfs = new SysfsNvme(SYS, DEV);
    private final Keyring targetKeys = KernelKeyring.nvme(Path.of("/proc/keys"));
    private final Keyring nodeKeys = NodePorts.kernelKeyring().get();
    private final TlsPsk psk = TlsPsk.generate(new SecureRandom());
    private HostLoops loops;
    private NvmetExport export;
    private Nqn host;
    private NvmeAttacher attacher;

    @BeforeAll
    static void tlshd() throws IOException, InterruptedException {
        NvmetExport.requireKernel();
        assertThat(Files.readString(DEV.resolve("nvme-fabrics"))).as("kernel %s has no NVMe/TCP TLS host; run with --kernel 6.12",
                System.getProperty("os.version")).contains(",tls");
        tlshd = Tlshd.withKeyringsOnly(daemon);
    }

    @AfterAll
    static void stopTlshd() throws InterruptedException {
        if (tlshd != null) {
            tlshd.close();
        }
    }

    @BeforeEach
    void exportOverTls() throws Exception {
        host = HostNqn.loadOrCreate(work.resolve("hostnqn"));
        loops = new HostLoops(work);
        export = new NvmetExport(EXPORTED, loops.create("tls", 16L << 20), host, PORT_ID, TRSVCID, true, true);
        targetKeys.put(psk.identity(host, EXPORTED), psk.bytes());
        attacher = new NvmeAttacher(new FabricsInitiator(DEV.resolve("nvme-fabrics"), sysfs, host), sysfs, host,
                Duration.ofSeconds(30), new SubsystemLocks(), NodePorts.kernelKeyring());
    }

    @AfterEach
    void removeIt() throws Exception {
        try {
            attacher.detach(context(psk));
            targetKeys.remove(psk.identity(host, EXPORTED));
        } finally {
            try {
                export.close();
            } finally {
                loops.close();
            }
        }
    }

    private static NvmeTarget context(TlsPsk key) {
        FabricsTarget target = new FabricsTarget(EXPORTED, FabricsTarget.TCP, "127.0.0.1", TRSVCID, 5, 1, 0, Optional.empty(), true);
        return new NvmeTarget(target, Optional.empty(), Optional.of(key), Optional.empty());
    }

    @Test
    void thePublicationsKeyConnectsOverTlsAndTheDetachRemovesIt() throws Exception {
        Attachment.Device device = attacher.attach(context(psk), controller -> { });
        assertThat(nodeKeys.find(psk.identity(host, EXPORTED))).as("the key in the node's keyring").isPresent();
        byte[] data = new byte[4096];
        Arrays.fill(data, (byte) 0x7c);
        try (FileChannel channel = FileChannel.open(device.node(), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(data), 8192);
            channel.force(true);
            ByteBuffer read = ByteBuffer.allocate(4096);
            channel.read(read, 8192);
            assertThat(read.array()).isEqualTo(data);
        }
        attacher.detach(context(psk));
        assertThat(attacher.attached(context(psk))).isEmpty();
        assertThat(nodeKeys.find(psk.identity(host, EXPORTED))).as("the detach removed the key").isEmpty();
    }

    @Test
    void anotherKeyUnderTheSameIdentityIsRefusedByTheHandshake() {
        TlsPsk other = TlsPsk.generate(new SecureRandom());
        assertThatThrownBy(() -> attacher.attach(context(other), controller -> { })).hasMessageContaining("failed");
        assertThat(attacher.attached(context(psk))).isEmpty();
    }
}
