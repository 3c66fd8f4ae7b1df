package pillar.runtime.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadConfigTest {
    @TempDir
    Path dir;

    @Test
    void bothSpellingsOfConfigNameTheFile() throws IOException {
        Path file = Files.writeString(dir.resolve("c.yaml"), "csi:\n  socket: /from/file.sock\n");

        assertThat(WorkloadConfig.load("--config", file.toString()).get("csi.socket").asString().get())
                .isEqualTo("/from/file.sock");
        assertThat(WorkloadConfig.load("--config=" + file).get("csi.socket").asString().get())
                .isEqualTo("/from/file.sock");
        assertThat(WorkloadConfig.load("--config=" + file).get("config").exists()).isFalse();
    }

    @Test
    void overridesWinOverTheFile() throws IOException {
        Path file = Files.writeString(dir.resolve("c.yaml"), "csi:\n  socket: /from/file.sock\n");

        assertThat(WorkloadConfig.load("--config=" + file, "--csi.socket=/cli.sock")
                .get("csi.socket").asString().get()).isEqualTo("/cli.sock");
    }

    @Test
    void aMissingFileOrStrayArgumentIsRefused() {
        assertThatThrownBy(() -> WorkloadConfig.load("--config=" + dir.resolve("absent.yaml")))
                .hasMessageContaining("does not exist");
        assertThatThrownBy(() -> WorkloadConfig.load("--config"))
                .hasMessageContaining("needs a file name");
        assertThatThrownBy(() -> WorkloadConfig.load("stray"))
                .hasMessageContaining("unknown argument 'stray'");
    }
}
