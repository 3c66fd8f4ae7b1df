package pillar.agent.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;

/**
 * The start-up decision on the state directory: written once at a first start with nothing live,
 * kept as it is after, and never taken for this agent's when it is missing while pillar-csi
 * subsystems are live, another node's, another installation's or damaged (then nothing is written).
 */
class StateCheckTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-01T20:00:00Z"), ZoneOffset.UTC);
    private static final List<Nqn> LIVE = List.of(Nqn.of("nqn.2024-06.io.pillar-csi:pvc-1"));
    private static final String RECOVERY = "pillar-agent --config F --recover-state";

    @TempDir
    Path dir;

    @Test
    void aFirstStartWithNothingLiveWritesTheIdentityOnceAndFindsItAgain() throws Exception {
        StateCheck.Verdict first = StateCheck.run(dir, "storage-1", Optional.empty(), List.of(), RECOVERY, CLOCK);
        assertThat(first).isInstanceOf(StateCheck.Verdict.Ready.class);
        StateIdentity written = ((StateCheck.Verdict.Ready) first).identity();
        assertThat(written.node()).isEqualTo("storage-1");
        assertThat(written.created()).isEqualTo(CLOCK.instant());
        assertThat(Files.readString(dir.resolve(StateIdentity.FILE))).isEqualTo("version=1\nnode=storage-1\ninstallation="
                + written.installation().value() + "\ncreated=2026-12-01T20:00:00Z\n");
        // the generated installation is kept: a later start (subsystems live now) finds the same one
        StateCheck.Verdict again = StateCheck.run(dir, "storage-1", Optional.empty(), LIVE, RECOVERY, Clock.systemUTC());
        assertThat(again).isEqualTo(first);
    }

    @Test
    void aConfiguredInstallationIsTheOneWritten() {
        StateCheck.Verdict verdict = StateCheck.run(dir, "storage-1", Optional.of(InstallationId.of("prod.pillar")), List.of(),
                RECOVERY, CLOCK);
        assertThat(verdict.installation()).isEqualTo(InstallationId.of("prod.pillar"));
        assertThat(StateIdentity.read(dir)).map(StateIdentity::installation).contains(InstallationId.of("prod.pillar"));
    }

    @Test
    void noIdentityWhileSubsystemsAreLiveIsMissingAndWritesNothing() {
        StateCheck.Verdict verdict = StateCheck.run(dir, "storage-1", Optional.empty(), LIVE, RECOVERY, CLOCK);
        assertThat(verdict).isInstanceOfSatisfying(StateCheck.Verdict.Missing.class, missing -> assertThat(missing.message())
                .startsWith("AgentStateMissing: the state directory " + dir + " has no identity, but the kernel exports pillar-csi subsystems")
                .contains("live pillar-csi subsystems: 1 (nqn.2024-06.io.pillar-csi:pvc-1)").contains("run '" + RECOVERY + "'"));
        assertThat(dir.resolve(StateIdentity.FILE)).doesNotExist();
    }

    @Test
    void anotherNodesOrInstallationsOrADamagedIdentityIsMissing() throws Exception {
        new StateIdentity("storage-1", InstallationId.of("prod"), CLOCK.instant()).write(dir);
        String before = Files.readString(dir.resolve(StateIdentity.FILE));
        assertThat(StateCheck.run(dir, "storage-2", Optional.empty(), List.of(), RECOVERY, CLOCK))
                .isInstanceOfSatisfying(StateCheck.Verdict.Missing.class, m -> assertThat(m.message())
                        .contains("belongs to node storage-1, not to this node storage-2"));
        assertThat(StateCheck.run(dir, "storage-1", Optional.of(InstallationId.of("staging")), List.of(), RECOVERY, CLOCK))
                .isInstanceOfSatisfying(StateCheck.Verdict.Missing.class, m -> assertThat(m.message())
                        .contains("belongs to installation prod, not to the configured agent.installation-id staging"));
        assertThat(StateCheck.run(dir, "storage-1", Optional.of(InstallationId.of("prod")), List.of(), RECOVERY, CLOCK))
                .isInstanceOf(StateCheck.Verdict.Ready.class);
        assertThat(Files.readString(dir.resolve(StateIdentity.FILE))).isEqualTo(before);

        Files.writeString(dir.resolve(StateIdentity.FILE), "version=1\nnode=storage-1\n");
        assertThat(StateCheck.run(dir, "storage-1", Optional.empty(), List.of(), RECOVERY, CLOCK))
                .isInstanceOfSatisfying(StateCheck.Verdict.Missing.class, m -> assertThat(m.message()).contains("is damaged"));
        assertThat(Files.readString(dir.resolve(StateIdentity.FILE))).isEqualTo("version=1\nnode=storage-1\n");
    }

    @Test
    void installationIdsAndNodeNamesKeepToTheirGrammar() {
        for (String good : List.of("a", "prod.pillar", "kube-system.pillar-csi", "0f9c2a6e-7c1b-4b8e-9a57-3e2d1c0b9a88", "x:y+z_1")) {
            assertThat(InstallationId.of(good).value()).isEqualTo(good);
        }
        for (String bad : List.of("", "-rf", ".hidden", "a b", "a/b", "a,b", "a=b", "@tag", "a\nb", "x".repeat(129))) {
            assertThatThrownBy(() -> InstallationId.of(bad)).as(bad).isInstanceOf(InvalidValueException.class)
                    .hasMessageContaining("agent.installation-id");
        }
        assertThat(InstallationId.random().value()).matches("[0-9a-f-]{36}");
        for (String bad : List.of("", "a b", "../x", "a\nnode=b", "x".repeat(254))) {
            assertThatThrownBy(() -> StateIdentity.checkNode(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("agent.node-name");
        }
    }
}
