package pillar.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.state.InstallationId;
import pillar.agent.state.StateIdentity;

/** The agent moves its legacy state directory at start, before anything reads the state (here: a refused start). */
class AgentMainStateDirTest {
    @TempDir
    Path dir;

    private int launch(Path legacy, Path state) throws Exception {
        Path config = dir.resolve("agent.yaml");
        Files.writeString(config, """
                agent:
                  node-name: storage-1
                  installation-id: storage.pillar
                  listen: {host: 127.0.0.1, port: 0}
                  state-dir: %s
                  legacy-state-dir: %s
                  configfs-root: %s
                  backends:
                    - {name: fast, type: lvm, volume-group: vg0}
                health: {host: 127.0.0.1, port: 0}
                """.formatted(state, legacy, Files.createDirectories(dir.resolve("not-mounted"))));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        return AgentMain.launch(new String[] {"--config", config.toString()}, Files.createDirectories(dir.resolve("sys")),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void itsOwnLegacyStateMovesBeforeTheStartUpChecks() throws Exception {
        Path legacy = dir.resolve("var/lib/pillar-csi/agent");
        Path state = dir.resolve("var/lib/pillar-csi/storage.pillar/agent");
        new StateIdentity("storage-1", InstallationId.of("storage.pillar"), Instant.parse("2026-11-01T00:00:00Z")).write(legacy);

        // configfs is not mounted: the start is refused after the move
        assertThat(launch(legacy, state)).isEqualTo(2);

        assertThat(legacy).doesNotExist();
        assertThat(StateIdentity.read(state).orElseThrow().installation()).isEqualTo(InstallationId.of("storage.pillar"));
    }

    @Test
    void anotherInstallationsLegacyStateIsLeft() throws Exception {
        Path legacy = dir.resolve("var/lib/pillar-csi/agent");
        Path state = dir.resolve("var/lib/pillar-csi/storage.pillar/agent");
        new StateIdentity("storage-1", InstallationId.of("other.release"), Instant.parse("2026-11-01T00:00:00Z")).write(legacy);

        assertThat(launch(legacy, state)).isEqualTo(2);

        assertThat(StateIdentity.read(legacy)).isPresent();
        assertThat(state).doesNotExist();
    }
}
