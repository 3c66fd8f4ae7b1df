package pillar.agent.backend.lvm;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import pillar.agent.backend.Captures;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;

/** Every failure LvmBackend tells apart, recognised on the real tools' stderr and exit status. */
class LvmFailureTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "lvs-missing, LV_NOT_FOUND",
            "lvremove-missing, LV_NOT_FOUND",
            "lvextend-missing, LV_NOT_FOUND",
            "lvs-novg, VG_NOT_FOUND",
            "vgs-missing, VG_NOT_FOUND",
            "lvcreate-novg, VG_NOT_FOUND",
            "lvremove-novg, VG_NOT_FOUND",
            "lvcreate-thin-nopool, POOL_NOT_FOUND",
            "lvcreate-linear-exists, EXISTS",
            "lvcreate-thin-exists, EXISTS",
            "lvcreate-linear-nospace, NO_SPACE",
            "lvextend-nospace, NO_SPACE",
            "lvremove-busy, IN_USE",
            "lvextend-same, OTHER",
            "lvextend-smaller, OTHER",
            "lvcreate-reserved, OTHER",
            "lvcreate-linear-unrounded, OTHER",
            "lvcreate-thin-zero, OTHER",
    })
    void capturedFailure(String capture, LvmFailure expected) {
        Captures.Capture c = Captures.lvm(capture);
        assertThat(c.exitCode()).as("exit status of " + c.argv()).isNotZero();
        assertThat(LvmFailure.of(c.failure())).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({ "lvcreate-thin-over", "lvcreate-thin-huge", "lvextend-thin" })
    void warningsOfSuccessfulCommandsGoToStderrButExitZero(String capture) {
        assertThat(Captures.lvm(capture).exitCode()).isZero();
        assertThat(Captures.lvm(capture).stderr()).contains("WARNING: Sum of all thin volume sizes");
    }

    @ParameterizedTest
    @CsvSource({ "lvremove-missing", "lvs-missing" })
    void aNotFoundMessageOnlyCountsWithLvmsFailureStatus(String capture) {
        Captures.Capture c = Captures.lvm(capture);
        Command command = Command.of(Duration.ofSeconds(1), "lvs");
        assertThat(LvmFailure.of(new CommandFailedException(command, -1, c.stderr(), true))).isEqualTo(LvmFailure.OTHER);
        assertThat(LvmFailure.of(new CommandFailedException(command, 3, c.stderr(), false))).isEqualTo(LvmFailure.OTHER);
    }
}
