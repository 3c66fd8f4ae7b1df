package pillar.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

class TimedProcessRunnerTest {
    private static final Duration T = Duration.ofSeconds(5);

    @Test
    void aCommandIsLabelledByItsProgramAndSubcommandNeverByItsArguments() {
        assertThat(TimedProcessRunner.label(Command.of(T, "zfs", "create", "-V", "1G", "tank/pvc-1"))).isEqualTo("zfs create");
        assertThat(TimedProcessRunner.label(Command.of(T, "/usr/sbin/zpool", "list", "-Hp"))).isEqualTo("zpool list");
        assertThat(TimedProcessRunner.label(Command.of(T, "lvcreate", "-n", "pvc-1", "vg"))).isEqualTo("lvcreate");
        assertThat(TimedProcessRunner.label(Command.of(T, "mkfs.ext4", "/dev/nvme0n1"))).isEqualTo("mkfs.ext4");
        // a subcommand position holding a name is not a subcommand
        assertThat(TimedProcessRunner.label(Command.of(T, "zfs", "tank/pvc-1"))).isEqualTo("zfs");
    }

    @Test
    void successesFailuresAndTimeoutsAreTimedApart() {
        WorkloadMetrics metrics = WorkloadMetrics.create("agent");
        ProcessRunner fake = command -> switch (command.argv().get(1)) {
            case "list" -> new CommandResult("", "");
            case "destroy" -> throw new CommandFailedException(command, 1, "busy", false);
            default -> throw new CommandFailedException(command, -1, "", true);
        };
        TimedProcessRunner runner = new TimedProcessRunner(fake, metrics);
        runner.run(Command.of(T, "zfs", "list"));
        runner.run(Command.of(T, "zfs", "list"));
        assertThatThrownBy(() -> runner.run(Command.of(T, "zfs", "destroy", "tank/pvc-9"))).isInstanceOf(CommandFailedException.class);
        assertThatThrownBy(() -> runner.run(Command.of(T, "zfs", "send", "tank/pvc-9@s"))).isInstanceOf(CommandFailedException.class);
        assertThat(metrics.scrape())
                .contains("pillar_agent_command_seconds_count{command=\"zfs list\",outcome=\"ok\"} 2")
                .contains("pillar_agent_command_seconds_count{command=\"zfs destroy\",outcome=\"failed\"} 1")
                .contains("pillar_agent_command_seconds_count{command=\"zfs send\",outcome=\"timeout\"} 1")
                .doesNotContain("pvc-9");
    }
}
