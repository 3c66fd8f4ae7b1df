package pillar.node.nvme;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;

/** The host NQN comes from the host; generated once and persisted when absent. */
class HostNqnTest {
    @TempDir
    Path dir;

    @Test
    void generatedOnceThenReadBack() throws Exception {
        Path file = dir.resolve("etc/nvme/hostnqn");
        Nqn first = HostNqn.loadOrCreate(file);
        assertThat(first.value()).matches("nqn\\.2014-08\\.org\\.nvmexpress:uuid:[0-9a-f-]{36}");
        assertThat(Files.readString(file)).isEqualTo(first.value() + "\n");
        assertThat(HostNqn.loadOrCreate(file)).isEqualTo(first);
        assertThat(Files.list(file.getParent())).hasSize(1); // no temporary file left
    }

    @Test
    void anExistingFileWins() throws Exception {
        Path file = dir.resolve("hostnqn");
        Files.writeString(file, "nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427\n");
        assertThat(HostNqn.loadOrCreate(file).value()).endsWith("0016d3cca427");
    }

    @Test
    void aMalformedFileRefusesToStart() throws Exception {
        Path file = dir.resolve("hostnqn");
        Files.writeString(file, "not an nqn, hostnqn=evil\n");
        assertThatThrownBy(() -> HostNqn.loadOrCreate(file)).hasMessageContaining("does not hold a valid host NQN");
    }

    @Test
    void aGeneratedNqnUsesTheHardwareUuidSoItDrawsNoWarning() throws Exception {
        Path sys = productUuid("4C4C4544-0042-3510-8051-B7C04F563232");
        Path file = dir.resolve("hostnqn");
        Nqn nqn = HostNqn.loadOrCreate(file, sys);
        assertThat(nqn.value()).isEqualTo("nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0042-3510-8051-b7c04f563232");
        assertThat(HostNqn.sharedWarning(nqn, file, sys)).isEmpty();
    }

    @Test
    void aUuidNqnOfAnotherMachineIsWarnedAbout() throws Exception {
        Path sys = productUuid("4c4c4544-0042-3510-8051-b7c04f563232");
        Nqn cloned = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427");
        assertThat(HostNqn.sharedWarning(cloned, Path.of("/etc/nvme/hostnqn"), sys)).hasValueSatisfying(w -> assertThat(w)
                .contains("names UUID 1b4e28ba-2fa1-11d2-883f-0016d3cca427")
                .contains("hardware UUID (" + sys.resolve("class/dmi/id/product_uuid") + ") is 4c4c4544-0042-3510-8051-b7c04f563232")
                .contains("replace /etc/nvme/hostnqn"));
        // the same NQN in upper case is the same UUID
        assertThat(HostNqn.sharedWarning(Nqn.of("nqn.2014-08.org.nvmexpress:uuid:4C4C4544-0042-3510-8051-B7C04F563232"),
                Path.of("/etc/nvme/hostnqn"), sys)).isEmpty();
    }

    @Test
    void noWarningForAHandWrittenNqnOrAnUnknownHardwareUuid() throws Exception {
        Path file = Path.of("/etc/nvme/hostnqn");
        Nqn uuidForm = Nqn.of("nqn.2014-08.org.nvmexpress:uuid:1b4e28ba-2fa1-11d2-883f-0016d3cca427");
        assertThat(HostNqn.sharedWarning(Nqn.of("nqn.2024-01.com.example:worker-7"), file,
                productUuid("4c4c4544-0042-3510-8051-b7c04f563232"))).isEmpty();
        assertThat(HostNqn.sharedWarning(uuidForm, file, dir.resolve("no-dmi"))).isEmpty();
        assertThat(HostNqn.sharedWarning(uuidForm, file, productUuid("00000000-0000-0000-0000-000000000000"))).isEmpty();
        assertThat(HostNqn.sharedWarning(uuidForm, file, productUuid("not a uuid"))).isEmpty();
        // a placeholder hardware UUID is not used for a new NQN either
        Path placeholder = productUuid("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF");
        assertThat(HostNqn.loadOrCreate(dir.resolve("generated"), placeholder).value()).doesNotContain("ffffffff-ffff");
    }

    private Path productUuid(String text) throws Exception {
        Path sys = Files.createTempDirectory(dir, "sys");
        Files.createDirectories(sys.resolve("class/dmi/id"));
        Files.writeString(sys.resolve("class/dmi/id/product_uuid"), text + "\n");
        return sys;
    }
}
