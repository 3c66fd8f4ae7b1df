package pillar.node.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import pillar.api.value.InvalidValueException;

/** The fs-type and mkfs-option allow-lists. */
class MkfsOptionsTest {
    @Test
    void fsTypesAreAllowListed() {
        assertThat(FsType.parse("")).isEqualTo(FsType.EXT4);
        assertThat(FsType.parse("ext4")).isEqualTo(FsType.EXT4);
        assertThat(FsType.parse("xfs")).isEqualTo(FsType.XFS);
        for (String bad : new String[] {"ext3", "btrfs", "XFS", "ext4 ", "../xfs", "vfat"}) {
            assertThatThrownBy(() -> FsType.parse(bad)).isInstanceOf(InvalidValueException.class)
                    .hasMessageContaining("fs_type");
        }
    }

    @Test
    void allowedOptionsBecomeSeparateArguments() {
        assertThat(MkfsOptions.parse("-m 0  -E lazy_itable_init=0,nodiscard -j", FsType.EXT4).arguments())
                .containsExactly("-m", "0", "-E", "lazy_itable_init=0,nodiscard", "-j");
        assertThat(MkfsOptions.parse("-K -m reflink=1,crc=1 -i size=512", FsType.XFS).arguments())
                .containsExactly("-K", "-m", "reflink=1,crc=1", "-i", "size=512");
        assertThat(MkfsOptions.parse("", FsType.XFS)).isEqualTo(MkfsOptions.NONE);
        assertThat(MkfsOptions.parse("   ", FsType.EXT4)).isEqualTo(MkfsOptions.NONE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"-F", "-f", "-m", "-m 51", "-m 0;reboot", "-E root_owner=0:0", "-d /etc", "-c",
        "-L name", "-O ^has_journal,encrypt", "$(reboot)", "-m\t0", "-b 3000", "-K", "-m 0 0"})
    void ext4RefusesAnythingElse(String options) {
        assertThatThrownBy(() -> MkfsOptions.parse(options, FsType.EXT4)).isInstanceOf(InvalidValueException.class)
                .hasMessageStartingWith("mkfsOptions");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-f", "-j", "-m 0", "-d file=/etc/passwd", "-p /etc/protofile", "-l size=abc",
        "-b size=1000", "-N"})
    void xfsRefusesAnythingElse(String options) {
        assertThatThrownBy(() -> MkfsOptions.parse(options, FsType.XFS)).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void overlongOptionsAreRefused() {
        assertThatThrownBy(() -> MkfsOptions.parse("-j ".repeat(100), FsType.EXT4)).hasMessageContaining("at most");
    }
}
