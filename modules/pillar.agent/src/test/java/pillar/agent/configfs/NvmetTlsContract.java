package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Set;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import pillar.api.value.Nqn;
import pillar.runtime.keys.Keyring;

/**
 * {@link ConfigfsNvmetTarget} keeps the TLS part of the {@link NvmetTarget} contract on a kernel whose
 * ports have {@code addr_tsas}: a TLS port requires the secure channel, a live port keeps its security,
 * and an export reads back and drifts with it. {@link ConfigfsNvmetTlsFakeTest} runs it on the fake,
 * {@code NvmeTlsKernelIT} on the 6.12 kernel in the VM, with what a host sees on the wire.
 */
abstract class NvmetTlsContract {
    static final Nqn A = NvmetTargetContract.A;
    static final Nqn HOST = NvmetTargetContract.HOST;
    static final PortId PORT = NvmetTargetContract.PORT;
    static final PortAddress PLAINTEXT = NvmetTargetContract.ADDRESS;
    static final PortAddress TLS = PortAddress.tcp(PLAINTEXT.traddr(), PLAINTEXT.trsvcid(), true);
    static final NamespaceId NSID = NvmetTargetContract.NSID;

    private final ConfigfsNvmetTarget target;
    private final ConfigfsTree tree;
    private final Path configfs;
    private final Path device;

    /** @param keys the kernel's {@code .nvme} keyring, or the fake tree's */
    NvmetTlsContract(ConfigfsTree tree, Path configfs, Path device, Function<ConfigfsTree, Keyring> keys) {
        this.target = new ConfigfsNvmetTarget(configfs, tree, () -> keys.apply(tree));
        this.tree = tree;
        this.configfs = configfs;
        this.device = device;
    }

    ConfigfsNvmetTarget target() {
        return target;
    }

    ConfigfsTree tree() {
        return tree;
    }

    Path device() {
        return device;
    }

    /** Exports {@link #A} on {@code address} to {@link #HOST} alone. */
    void export(PortAddress address) {
        target.ensureExport(PORT, new WantedExport(A, NSID, device, address, true, Set.of(HOST)));
    }

    private String portAttribute(String name) throws Exception {
        return tree.read(configfs.resolve("nvmet/ports").resolve(PORT.dirName()).resolve(name)).strip();
    }

    @Test
    void theKernelsPortsCanRequireTls() {
        assertThat(target.tlsSupported()).isTrue();
    }

    @Test
    void aTlsPortRequiresTheSecureChannel() throws Exception {
        target.ensurePort(PORT, TLS);
        assertThat(portAttribute("addr_tsas")).isEqualTo("tls1.3");
        assertThat(portAttribute("addr_treq")).as("the kernel sets the secure channel required with tls1.3").isEqualTo("required");
    }

    @Test
    void aLivePortKeepsItsSecurityAndTheCallChangesNothing() throws Exception {
        export(PLAINTEXT);
        assertThatThrownBy(() -> target.ensurePort(PORT, TLS)).isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("is live").hasMessageContaining("addr_tsas");
        assertThat(portAttribute("addr_tsas")).isEqualTo("none");
    }

    @Test
    void anExportOnATlsPortReadsBackWithItAndDriftsWithoutIt() {
        export(TLS);
        SubsystemState state = target.inspect(A).orElseThrow();
        assertThat(state.ports()).singleElement().satisfies(port -> {
            assertThat(port.tls()).isTrue();
            assertThat(port.listensAt(TLS)).isTrue();
            assertThat(port.listensAt(PLAINTEXT)).isFalse();
            assertThat(port.address()).endsWith("(TLS)");
        });
        WantedExport wanted = new WantedExport(A, NSID, device, TLS, true, Set.of(HOST));
        assertThat(ExportDrift.of(wanted, state)).isEmpty();
        assertThat(ExportDrift.of(new WantedExport(A, NSID, device, PLAINTEXT, true, Set.of(HOST)), state)).isNotEmpty();
    }
}
