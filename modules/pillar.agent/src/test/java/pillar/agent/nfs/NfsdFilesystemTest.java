package pillar.agent.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.agent.backend.Captures;
import pillar.agent.backend.ScriptedRunner;

/** nfsd's filesystem mounted in the agent's own /proc exactly when nfsd is loaded and it is not mounted there. */
class NfsdFilesystemTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path proc;

    @Test
    void loadedButNotMountedHereIsMountedByOneCommandUnderItsDeadline() throws IOException {
        Files.createDirectories(proc.resolve("fs/nfsd"));
        ScriptedRunner runner = new ScriptedRunner(ScriptedRunner.printing("", ""));

        assertThat(NfsdFilesystem.mountIfMissing(runner, DEADLINE, proc)).isTrue();
        assertThat(runner.commands()).singleElement().satisfies(c -> {
            assertThat(c.argv()).containsExactly("mount", "-t", "nfsd", "nfsd", proc.resolve("fs/nfsd").toString());
            assertThat(c.timeout()).isEqualTo(DEADLINE);
        });
    }

    @Test
    void mountedAlreadyOrNfsdNotLoadedRunsNothing() throws IOException {
        ScriptedRunner runner = new ScriptedRunner();
        // no /proc/fs/nfsd: the module is not loaded (NfsPresence names that)
        assertThat(NfsdFilesystem.mountIfMissing(runner, DEADLINE, proc)).isFalse();
        // mounted (the host's systemd, or a restarted agent's container)
        Files.createDirectories(proc.resolve("fs/nfsd"));
        Files.writeString(proc.resolve("fs/nfsd/versions"), "-3 +4 +4.1 +4.2\n");
        assertThat(NfsdFilesystem.mountIfMissing(runner, DEADLINE, proc)).isFalse();
        assertThat(runner.commands()).isEmpty();
    }

    @Test
    void aFailedMountIsNotThrownAndNfsPresenceStillNamesWhatIsMissing() throws IOException {
        Files.createDirectories(proc.resolve("fs/nfsd"));
        ScriptedRunner runner = new ScriptedRunner(new Captures.Capture("", "", "mount: /proc/fs/nfsd: permission denied.", 32));

        assertThat(NfsdFilesystem.mountIfMissing(runner, DEADLINE, proc)).isFalse();
        assertThat(runner.commands()).extracting(c -> c.argv().getFirst()).isEqualTo(List.of("mount"));
        assertThat(NfsPresence.problem(proc)).hasValueSatisfying(p -> assertThat(p).contains("nfsd does not run"));
    }
}
