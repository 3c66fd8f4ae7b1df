package pillar.agent.backend.zfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import pillar.agent.backend.Captures;

/** The OpenZFS version parser on real {@code zfs version} output and module versions ({@code zfs/README.md}). */
class ZfsVersionTest {
    @Test
    void theToolsOfTheCapturedMatchAreOfTheModulesLine() {
        String output = Captures.zfs("version").stdout();
        ZfsVersion tools = ZfsVersion.userland(output);
        ZfsVersion module = ZfsVersion.parse(output.lines().toList().get(1));
        assertThat(tools).isEqualTo(new ZfsVersion(2, 1, 11, "2.1.11-1+deb12u1"));
        assertThat(module).isEqualTo(tools);
        assertThat(tools.sameLine(module)).isTrue();
    }

    @Test
    void theCapturedMismatchIsOfTwoLines() {
        String output = Captures.zfs("version-mismatch").stdout();
        ZfsVersion tools = ZfsVersion.userland(output);
        ZfsVersion kmod = ZfsVersion.parse(output.lines().toList().get(1));
        ZfsVersion module = ZfsVersion.parse(Captures.read("zfs/module-version-2.3.txt"));
        assertThat(tools).isEqualTo(new ZfsVersion(2, 1, 11, "2.1.11-1+deb12u1"));
        assertThat(kmod).isEqualTo(new ZfsVersion(2, 3, 2, "2.3.2-2~bpo12+2")).isEqualTo(module);
        assertThat(tools.sameLine(module)).isFalse();
        assertThat(tools.line() + " " + module.line()).isEqualTo("2.1 2.3");
    }

    @Test
    void otherPatchLevelsAreOneLine() {
        assertThat(ZfsVersion.parse("zfs-2.1.12-1").sameLine(ZfsVersion.parse("2.1.11-1+deb12u1"))).isTrue();
        assertThat(ZfsVersion.parse("zfs-2.2.0-rc1")).isEqualTo(new ZfsVersion(2, 2, 0, "2.2.0-rc1"));
        assertThat(ZfsVersion.parse("2.3")).isEqualTo(new ZfsVersion(2, 3, 0, "2.3"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "zfs-", "zfs-kmod-unknown", "The ZFS modules are not loaded.", "2", "v2.1.11"})
    void whatIsNoVersionIsRefused(String text) {
        assertThatThrownBy(() -> ZfsVersion.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not an OpenZFS version");
    }

    @Test
    void outputWithoutTheToolsLineSaysWhatItPrinted() {
        assertThatThrownBy(() -> ZfsVersion.userland("zfs-kmod-2.1.11-1\n")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("zfs version printed no version of the tools: 'zfs-kmod-2.1.11-1'");
    }
}
