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
}
