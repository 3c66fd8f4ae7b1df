package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * {@link NvmetTlsContract} on the fake tree of a kernel with TLS ports (as Debian's 6.12), and the 6.1
 * fake's answer: no {@code addr_tsas}, so no TLS port, refused before anything is written.
 */
class ConfigfsNvmetTlsFakeTest extends NvmetTlsContract {
    private static final Path DEVICE = Path.of("/dev/vg0/pvc-a");

    ConfigfsNvmetTlsFakeTest() {
        super(FakeConfigfsTree.createWithAuth().addBlockDevice(DEVICE), FakeConfigfsTree.DEFAULT_ROOT, DEVICE,
                tree -> ((FakeConfigfsTree) tree).tlsKeys());
    }

    @Test
    void aKernelWithoutTlsPortsSaysSoAndAPlaintextPortIsUnchanged() {
        FakeConfigfsTree sixOne = FakeConfigfsTree.create().addBlockDevice(DEVICE);
        ConfigfsNvmetTarget target = sixOne.target();
        target.ensurePort(PORT, PLAINTEXT);
        assertThat(target.tlsSupported()).isFalse();
        assertThatThrownBy(() -> target.ensurePort(PORT, TLS)).isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("cannot require TLS");
        assertThat(target.inspect(A)).isEmpty();
    }
}
