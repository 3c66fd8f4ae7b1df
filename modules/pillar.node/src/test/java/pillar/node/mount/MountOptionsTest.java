package pillar.node.mount;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import pillar.api.value.InvalidValueException;
import pillar.node.fs.FsType;

/** The mount-flag allow-list: flag bits, filesystem data, and what is refused. */
class MountOptionsTest {
    @Test
    void flagsBecomeBitsAndFilesystemOptionsBecomeData() {
        MountOptions o = MountOptions.parse(List.of("noatime,nodev", "discard", "commit=30", "nosuid"), FsType.EXT4);
        assertThat(o.flags()).isEqualTo(MountOptions.MS_NOATIME | MountOptions.MS_NODEV | MountOptions.MS_NOSUID);
        assertThat(o.dataString()).isEqualTo("discard,commit=30");
        assertThat(o.canonical()).containsExactly("noatime", "nodev", "discard", "commit=30", "nosuid");
        assertThat(o.readOnly()).isFalse();
        assertThat(o.withReadOnly().readOnly()).isTrue();
        assertThat(o.perMountFlags()).isEqualTo(o.flags());
        assertThat(MountOptions.parse(List.of(), FsType.XFS).dataString()).isNull();
    }

    @Test
    void xfsIsStagedWithoutItsUuidCheckSoThatAClonePlacedBesideItsSourceMounts() {
        assertThat(MountOptions.parse(List.of(), FsType.XFS).forStaging(FsType.XFS).dataString()).isEqualTo("nouuid");
        assertThat(MountOptions.parse(List.of("inode64"), FsType.XFS).forStaging(FsType.XFS).dataString())
                .isEqualTo("inode64,nouuid");
        assertThat(MountOptions.parse(List.of("nouuid"), FsType.XFS).forStaging(FsType.XFS).dataString()).isEqualTo("nouuid");
        assertThat(MountOptions.parse(List.of("discard"), FsType.EXT4).forStaging(FsType.EXT4).dataString()).isEqualTo("discard");
    }

    @Test
    void repeatedOptionsCollapse() {
        assertThat(MountOptions.parse(List.of("noatime", "noatime"), FsType.XFS).canonical()).containsExactly("noatime");
    }

    @Test
    void optionsOfTheOtherFilesystemAreRefused() {
        assertThat(MountOptions.parse(List.of("nouuid", "inode64", "logbufs=8", "allocsize=64k"), FsType.XFS)
                .dataString()).isEqualTo("nouuid,inode64,logbufs=8,allocsize=64k");
        assertThatThrownBy(() -> MountOptions.parse(List.of("nouuid"), FsType.EXT4))
                .isInstanceOf(InvalidValueException.class).hasMessageContaining("'nouuid' is not allowed for ext4");
        assertThatThrownBy(() -> MountOptions.parse(List.of("commit=5"), FsType.XFS))
                .isInstanceOf(InvalidValueException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"errors=panic", "bind", "rbind", "remount", "suid", "dev", "exec", "", "commit=0",
        "commit=1000", "x-mount.mkdir", "context=system_u:object_r:foo", "noatime\u0000", "uid=0", "loop",
        "logbufs=9", "a,,b"})
    void anythingOffTheListIsInvalid(String option) {
        assertThatThrownBy(() -> MountOptions.parse(List.of(option), FsType.EXT4))
                .isInstanceOf(InvalidValueException.class)
                .hasMessageStartingWith("mount_flags");
    }

    @Test
    void hostileOptionsAreNotEchoed() {
        assertThatThrownBy(() -> MountOptions.parse(List.of("x\u001b[31m"), FsType.EXT4))
                .hasMessageContaining("an option of 6 characters").hasMessageNotContaining("\u001b");
    }

    @Test
    void blockVolumesTakeNoFlags() {
        assertThat(MountOptions.parseForBlock(List.of())).isEqualTo(MountOptions.NONE);
        assertThatThrownBy(() -> MountOptions.parseForBlock(List.of("ro"))).isInstanceOf(InvalidValueException.class);
    }

    @Test
    void tooManyOptionsAreRefused() {
        String many = String.join(",", java.util.Collections.nCopies(40, "noatime"));
        assertThatThrownBy(() -> MountOptions.parse(List.of(many), FsType.EXT4)).hasMessageContaining("at most");
    }

    @Test
    void nfsTakesPerMountFlagsOnlyAndNeverItsOwnOptions() {
        MountOptions o = MountOptions.parseForNfs(List.of("noatime,nosuid", "ro"));
        assertThat(o.flags()).isEqualTo(MountOptions.MS_NOATIME | MountOptions.MS_NOSUID | MountOptions.MS_RDONLY);
        assertThat(o.dataString()).isNull();
        assertThat(o.canonical()).containsExactly("noatime", "nosuid", "ro");
        for (String refused : List.of("soft", "timeo=1", "vers=3", "sync", "lazytime", "discard", "nolock", "")) {
            assertThatThrownBy(() -> MountOptions.parseForNfs(List.of(refused)))
                    .isInstanceOf(InvalidValueException.class).hasMessageContaining("NFS");
        }
    }
}
