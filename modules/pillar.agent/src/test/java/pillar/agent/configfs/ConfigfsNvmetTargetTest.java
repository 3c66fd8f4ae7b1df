package pillar.agent.configfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import pillar.api.value.InvalidValueException;
import pillar.api.value.Nqn;

/**
 * The adapter on the real file system of the build machine (no configfs there): the device path
 * grammar, and the hint when configfs or nvmet is not there at all. The behaviour on nvmet is
 * {@link NvmetTargetContract}, run on the fake tree and on the kernel; {@link NvmetLoopbackKernelIT}
 * proves a whole export end to end.
 */
class ConfigfsNvmetTargetTest {
    private static final Nqn SUBSYSTEM = Nqn.of("nqn.2024-01.io.pillar-csi:vol1");

    @TempDir
    Path root;

    @Test
    void devicePathsAsBackendsNameThem() {
        assertThat(ConfigfsNvmetTarget.devicePathValue(Path.of("/dev/vg0/pvc-1_a"))).isEqualTo("/dev/vg0/pvc-1_a");
        assertThat(ConfigfsNvmetTarget.devicePathValue(Path.of("/dev/zvol/tank/k8s/pvc-1"))).isEqualTo(
                "/dev/zvol/tank/k8s/pvc-1");
        assertThat(ConfigfsNvmetTarget.devicePathValue(Path.of("/dev/mapper/vg0-lv+x"))).isEqualTo(
                "/dev/mapper/vg0-lv+x");
    }

    @ParameterizedTest
    @ValueSource(strings = {"dev/vg/lv", "/dev/../etc/shadow", "/dev/./vg", "/dev/vg/lv\n/dev/sda", "/dev/vg/l v",
        "/dev/vg/lv;x", "/dev/vg/\u00e9"})
    void refusesOtherDevicePaths(String path) {
        assertThatThrownBy(() -> ConfigfsNvmetTarget.devicePathValue(Path.of(path)))
                .isInstanceOf(InvalidValueException.class);
    }

    @Test
    void missingNvmetTreeSaysWhy() throws IOException {
        ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(root);
        assertThatThrownBy(() -> target.ensureSubsystem(SUBSYSTEM, false))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining(root.resolve("nvmet/subsystems").resolve(SUBSYSTEM.value()).toString())
                .hasMessageContaining("ENOENT")
                .hasMessageContaining("are the nvmet modules loaded")
                .satisfies(e -> assertThat(((NvmetTargetException) e).errno()).contains(Errno.ENOENT));
        try (Stream<Path> left = Files.list(root)) {
            assertThat(left).as("nothing is created outside the kernel's tree").isEmpty();
        }
    }

    @Test
    void missingConfigfsSaysWhereToMountIt() {
        ConfigfsNvmetTarget target = new ConfigfsNvmetTarget(root.resolve("config"));
        assertThatThrownBy(() -> target.linkPort(PortId.of(1), SUBSYSTEM))
                .isInstanceOf(NvmetTargetException.class)
                .hasMessageContaining("mount -t configfs none " + root.resolve("config"));
    }

    @Test
    void removingAnAbsentSubsystemSucceedsAndTouchesNothing() {
        // removeSubsystem of an absent subsystem succeeds without touching anything
        new ConfigfsNvmetTarget(root).removeSubsystem(SUBSYSTEM);
        assertThat(root).isEmptyDirectory();
    }
}
