package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import pillar.api.value.Nqn;
import pillar.runtime.metrics.WorkloadMetrics;

/** Every configfs call is timed by its system call and outcome, never by its path; the kernel's tree is timed as served. */
class TimedConfigfsTreeTest {
    private static final Nqn SUBSYSTEM = Nqn.of("nqn.2024-06.io.pillar-csi:pvc-timed");

    @TempDir
    Path dir;

    private final WorkloadMetrics metrics = WorkloadMetrics.create("agent");
    private final FakeConfigfsTree fake = FakeConfigfsTree.create();
    private HangingTree hanging;

    @AfterEach
    void release() {
        if (hanging != null) {
            hanging.release();
        }
    }

    @Test
    void callsAreTimedByOperationAndOutcomeNeverByPath() {
        ConfigfsTree tree = new TimedConfigfsTree(fake, metrics);
        new ConfigfsNvmetTarget(fake.root(), tree).ensureSubsystem(SUBSYSTEM, true);
        assertThatThrownBy(() -> tree.write(fake.nvmet("subsystems/" + SUBSYSTEM + "/no_such_attribute"), "1"))
                .isInstanceOf(NoSuchFileException.class);
        assertThatThrownBy(() -> tree.rmdir(fake.nvmet("subsystems/nqn.2024-06.io.pillar-csi:pvc-absent")))
                .isInstanceOf(NoSuchFileException.class);
        assertThat(metrics.scrape())
                .contains("pillar_agent_configfs_seconds_count{operation=\"mkdir\",outcome=\"ok\"} 1\n")
                .contains("pillar_agent_configfs_seconds_count{operation=\"write\",outcome=\"ok\"} 1\n")
                .contains("pillar_agent_configfs_seconds_count{operation=\"write\",outcome=\"failed\"} 1\n")
                .contains("pillar_agent_configfs_seconds_count{operation=\"rmdir\",outcome=\"failed\"} 1\n")
                .containsPattern("pillar_agent_configfs_seconds_count\\{operation=\"read\",outcome=\"ok\"} [1-9]")
                .doesNotContain("pvc-").doesNotContain("subsystems");
    }

    @Test
    void aCallPastItsDeadlineIsATimeout() {
        Path stuck = fake.nvmet("ports");
        hanging = new HangingTree(fake, stuck);
        ConfigfsTree tree = new TimedConfigfsTree(new DeadlineConfigfsTree(hanging, Duration.ofMillis(200)), metrics);
        assertThatThrownBy(() -> tree.list(stuck)).isInstanceOf(ConfigfsTimeoutException.class);
        assertThatThrownBy(() -> tree.kind(stuck))
                .isInstanceOfSatisfying(NvmetTargetException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(metrics.scrape())
                .contains("pillar_agent_configfs_seconds_count{operation=\"list\",outcome=\"timeout\"} 1\n")
                .contains("pillar_agent_configfs_seconds_count{operation=\"lstat\",outcome=\"timeout\"} 1\n")
                .doesNotContain("outcome=\"failed\"");
    }

    @Test
    void theKernelTreeAsServedIsTimed() throws Exception {
        Path standIn = Files.createDirectories(dir.resolve("configfs/nvmet"));
        assertThat(new ConfigfsNvmetTarget(standIn.getParent(), metrics).presence()).isEqualTo(TargetPresence.STAND_IN);
        assertThat(metrics.scrape())
                .contains("pillar_agent_configfs_seconds_count{operation=\"statfs\",outcome=\"ok\"} 1\n")
                .contains("pillar_agent_configfs_seconds_count{operation=\"lstat\",outcome=\"ok\"} 1\n");
    }
}
