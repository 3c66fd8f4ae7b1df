package pillar.agent.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.logging.Level;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.agent.state.StateDirMigration.Outcome;
import pillar.agent.state.StateDirMigration.Result;

/** The legacy state directory moves onto the release's own by one rename when it is ours, else it is left. */
class StateDirMigrationTest {
    private static final String NODE = "storage-1";
    private static final InstallationId OURS = InstallationId.of("storage.pillar");
    private static final Instant CREATED = Instant.parse("2026-11-01T00:00:00Z");

    @TempDir
    Path host;

    private Path legacy() {
        return host.resolve("var/lib/pillar-csi/agent");
    }

    private Path stateDir() {
        return host.resolve("var/lib/pillar-csi/storage.pillar/agent");
    }

    /** A state directory as an agent leaves it: the identity and one export record. */
    private static void agentState(Path dir, String node, InstallationId installation) throws IOException {
        new StateIdentity(node, installation, CREATED).write(dir);
        Files.createDirectories(dir.resolve("exports"));
        Files.writeString(dir.resolve("exports/pvc-1"), "record of " + installation);
    }

    private Result migrate() {
        return StateDirMigration.run(stateDir(), legacy(), NODE, OURS);
    }

    @Test
    void ourLegacyDirectoryMovesWholeIntoTheNewPlaceCreatingItsParents() throws IOException {
        agentState(legacy(), NODE, OURS);
        long inode = (long) Files.getAttribute(legacy(), "unix:ino");
        assertThat(stateDir().getParent()).doesNotExist();

        Result result = migrate();

        assertThat(result.outcome()).isEqualTo(Outcome.MOVED);
        assertThat(result.level()).isEqualTo(Level.INFO);
        assertThat(result.message()).contains(legacy().toString(), stateDir().toString());
        assertThat(legacy()).doesNotExist();
        assertThat(StateIdentity.read(stateDir())).contains(new StateIdentity(NODE, OURS, CREATED));
        assertThat(stateDir().resolve("exports/pvc-1")).hasContent("record of " + OURS);
        assertThat((long) Files.getAttribute(stateDir(), "unix:ino")).as("renamed, never copied").isEqualTo(inode);
        // and StateCheck then finds this agent's own state there
        assertThat(StateCheck.run(stateDir(), NODE, java.util.Optional.of(OURS), java.util.List.of(), "recover",
                java.time.Clock.systemUTC())).isInstanceOf(StateCheck.Verdict.Ready.class);
    }

    @Test
    void anEmptyStateDirectoryIsReplacedByTheRename() throws IOException {
        agentState(legacy(), NODE, OURS);
        Files.createDirectories(stateDir());
        assertThat(migrate().outcome()).isEqualTo(Outcome.MOVED);
        assertThat(legacy()).doesNotExist();
        assertThat(stateDir().resolve("exports/pvc-1")).exists();
    }

    @Test
    void anotherInstallationsLegacyDirectoryIsLeftUntouchedAndSaidAtInfo() throws IOException {
        agentState(legacy(), NODE, InstallationId.of("other.release"));
        Result result = migrate();
        assertThat(result.outcome()).isEqualTo(Outcome.NOT_OURS);
        assertThat(result.level()).isEqualTo(Level.INFO);
        assertThat(result.message()).contains("other.release", "left untouched");
        assertThat(StateIdentity.read(legacy()).orElseThrow().installation()).isEqualTo(InstallationId.of("other.release"));
        assertThat(legacy().resolve("exports/pvc-1")).exists();
        assertThat(stateDir()).doesNotExist();
    }

    @Test
    void anotherNodesLegacyDirectoryIsLeftUntouched() throws IOException {
        agentState(legacy(), "storage-2", OURS);
        Result result = migrate();
        assertThat(result.outcome()).isEqualTo(Outcome.NOT_OURS);
        assertThat(result.message()).contains("storage-2");
        assertThat(legacy().resolve("identity")).exists();
        assertThat(stateDir()).doesNotExist();
    }

    @Test
    void whenBothHoldStateTheNewOneIsUsedAndTheLegacyOneLeftWithAWarning() throws IOException {
        agentState(legacy(), NODE, OURS);
        new StateIdentity(NODE, OURS, CREATED.plusSeconds(60)).write(stateDir());
        Result result = migrate();
        assertThat(result.outcome()).isEqualTo(Outcome.BOTH_PRESENT);
        assertThat(result.level()).isEqualTo(Level.WARNING);
        assertThat(result.message()).contains("uses " + stateDir(), "leaves " + legacy() + " untouched");
        assertThat(StateIdentity.read(stateDir()).orElseThrow().created()).isEqualTo(CREATED.plusSeconds(60));
        assertThat(stateDir().resolve("exports")).as("never merged").doesNotExist();
        assertThat(legacy().resolve("exports/pvc-1")).exists();
    }

    @Test
    void aStateDirectoryWithRecordsButNoIdentityIsNotOverwrittenEither() throws IOException {
        agentState(legacy(), NODE, OURS);
        Files.createDirectories(stateDir().resolve("exports"));
        assertThat(migrate().outcome()).isEqualTo(Outcome.BOTH_PRESENT);
        assertThat(legacy().resolve("identity")).exists();
        assertThat(stateDir().resolve("identity")).doesNotExist();
    }

    @Test
    void withoutALegacyDirectoryNothingHappens() {
        assertThat(migrate().outcome()).isEqualTo(Outcome.NO_LEGACY);
        assertThat(stateDir()).doesNotExist();
    }

    @Test
    void aLegacyDirectoryWithoutOrWithADamagedIdentityIsLeftWithAWarning() throws IOException {
        Files.createDirectories(legacy().resolve("exports"));
        Result none = migrate();
        assertThat(none.outcome()).isEqualTo(Outcome.UNKNOWN_OWNER);
        assertThat(none.level()).isEqualTo(Level.WARNING);
        assertThat(none.message()).contains("no identity", "move it to " + stateDir());
        Files.writeString(legacy().resolve(StateIdentity.FILE), "version=9\n");
        assertThat(migrate().outcome()).isEqualTo(Outcome.UNKNOWN_OWNER);
        assertThat(legacy().resolve(StateIdentity.FILE)).hasContent("version=9\n");
        assertThat(stateDir()).doesNotExist();
    }

    /**
     * The rename is the one step that changes anything, and it is atomic: a crash leaves the state at
     * the legacy place (perhaps with the new parents made) or at the new one. A start after either
     * ends with the state at the new place, whole, and a later start has nothing to move.
     */
    @Test
    void aRetryAfterACrashAtAnyInstantFindsTheStateAtOnePlaceAndEndsMoved() throws IOException {
        // crashed before the rename: the parents were created (durably), the legacy directory is whole
        agentState(legacy(), NODE, OURS);
        Files.createDirectories(stateDir().getParent());
        assertThat(migrate().outcome()).isEqualTo(Outcome.MOVED);
        assertThat(stateDir().resolve("exports/pvc-1")).exists();
        // crashed after the rename, before the agent went on: the retry finds the new place, nothing to move
        assertThat(migrate().outcome()).isEqualTo(Outcome.NO_LEGACY);
        assertThat(StateIdentity.read(stateDir())).contains(new StateIdentity(NODE, OURS, CREATED));
        assertThat(stateDir().resolve("exports/pvc-1")).exists();
    }

    @Test
    void aFailedRenameMovesNothingAndSaysWhy() throws IOException {
        agentState(legacy(), NODE, OURS);
        // the state directory's parent is a file: the rename cannot happen
        Files.createDirectories(host.resolve("var/lib/pillar-csi"));
        Files.writeString(stateDir().getParent(), "not a directory");
        assertThatThrownBy(this::migrate).isInstanceOf(UncheckedIOException.class);
        assertThat(legacy().resolve("exports/pvc-1")).exists();
        assertThat(StateIdentity.read(legacy())).isPresent();
    }
}
