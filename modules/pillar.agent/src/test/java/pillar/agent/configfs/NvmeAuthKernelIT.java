package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;

/**
 * NVMe in-band authentication on the real kernel with nvmet authentication (Debian's 6.12 in the VM,
 * {@code dev/kernel-it --kernel 6.12}): {@link NvmetAuthContract} there, and the promise seen from the
 * host: with the right secret it connects and reads what it wrote, with a wrong one or none the
 * kernel refuses the connect, after a rotation the old secret is refused and the new one works, and
 * bidirectional authentication once. Fails (never skips) on a kernel without authentication.
 */
class NvmeAuthKernelIT extends NvmetAuthContract {
    /**
     * Give up soon; duplicate_connect: a second connect while the first controller lives (the rotation
     * case) is judged by the target, not refused by the host as a duplicate (EALREADY).
     */
    private static final String HOST_OPTIONS = "reconnect_delay=1,ctrl_loss_tmo=2,duplicate_connect";

    @TempDir
    static Path work;
    private static Path loop;

    private final FabricsInitiator initiator = new FabricsInitiator(Path.of("/dev"), Path.of("/sys"));
    private final List<String> connected = new ArrayList<>();

    NvmeAuthKernelIT() {
        super(new DeadlineConfigfsTree(new KernelConfigfsTree(), DeadlineConfigfsTree.DEFAULT_DEADLINE), KernelBed.CONFIGFS, loop);
    }

    @BeforeAll
    static void bed() throws IOException {
        KernelBed.requireVm();
        assertThat(KernelBed.hasNvmetAuth()).as("kernel %s has no nvmet authentication: run with --kernel 6.12",
                System.getProperty("os.version")).isTrue();
        loop = KernelBed.loopDevice(work, "auth", 16L << 20);
    }

    @AfterEach
    void removeWhatTheTestMade() throws IOException, InterruptedException {
        for (String controller : connected) {
            initiator.disconnect(controller, Duration.ofSeconds(10));
        }
        KernelBed.wipe(tree());
    }

    @AfterAll
    static void detach() {
        KernelBed.detach(loop);
    }

    @Override
    String connect(Nqn host, String hostSecret, String ctrlSecret) throws IOException {
        String options = HOST_OPTIONS + (hostSecret.isEmpty() ? "" : ",dhchap_secret=" + hostSecret)
                + (ctrlSecret.isEmpty() ? "" : ",dhchap_ctrl_secret=" + ctrlSecret);
        long start = System.nanoTime();
        try {
            String name = initiator.connect(ADDRESS, A, host, options).name();
            connected.add(name);
            return name;
        } catch (IOException e) {
            System.out.println("[auth-kernel-it] connect refused after " + (System.nanoTime() - start) / 1_000_000
                    + " ms: " + e.getMessage());
            throw e;
        }
    }

    @Override
    void disconnect(String controller) throws IOException {
        try {
            initiator.disconnect(controller, Duration.ofSeconds(10));
            connected.remove(controller);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Test
    void theRightSecretReadsAndWritesTheNamespaceAndTheOthersCannotConnect() throws Exception {
        export(HostAuth.oneWay(KEY_1));
        String controller = connect(HOST, KEY_1.value(), "");
        Path head = initiator.awaitHead(A, NSID, Duration.ofSeconds(10));
        byte[] data = new byte[4096];
        Arrays.fill(data, (byte) 0x5a);
        try (FileChannel device = FileChannel.open(head, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            device.write(ByteBuffer.wrap(data), 8192);
            device.force(true);
        }
        disconnect(controller);

        assertRejected(() -> connect(HOST, KEY_2.value(), ""), "a wrong secret");
        assertThatThrownBy(() -> connect(HOST, "", "")).hasMessageContaining(refusedWithoutKey());

        target().allowHost(A, HOST, Optional.of(HostAuth.oneWay(KEY_2)));
        assertRejected(() -> connect(HOST, KEY_1.value(), ""), "the old secret after a rotation");
        connect(HOST, KEY_2.value(), "");
        Path again = initiator.awaitHead(A, NSID, Duration.ofSeconds(10));
        ByteBuffer read = ByteBuffer.allocate(4096);
        try (FileChannel device = FileChannel.open(again, StandardOpenOption.READ)) {
            device.read(read, 8192);
        }
        assertThat(read.array()).as("what the first connect wrote, read after the rotation").isEqualTo(data);
    }
}
