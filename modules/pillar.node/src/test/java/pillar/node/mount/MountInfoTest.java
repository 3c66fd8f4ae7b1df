package pillar.node.mount;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/** The mountinfo parser: fields, optional fields, octal escapes, stacking, and malformed input. */
class MountInfoTest {
    private static final String TABLE = """
            22 1 252:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
            36 22 259:3 / /var/lib/kubelet/plugins/pillar/globalmount rw,noatime shared:7 master:2 - xfs /dev/nvme1n1 rw,attr2,inode64
            37 22 259:3 / /var/lib/kubelet/pods/a\\040b/mount ro,relatime - xfs /dev/nvme1n1 rw,attr2
            38 22 0:5 /nvme1n1 /var/lib/kubelet/pods/u1/dev/pvc-1 rw,nosuid - devtmpfs udev rw,size=100k
            39 37 0:40 / /var/lib/kubelet/pods/a\\040b/mount rw - tmpfs tmp\\134fs rw
            """;

    @Test
    void parsesFixedOptionalAndTrailingFields() {
        MountInfo info = MountInfo.parse(TABLE);
        assertThat(info.entries()).hasSize(5);
        MountEntry staging = info.entries().get(1);
        assertThat(staging.id()).isEqualTo(36);
        assertThat(staging.parentId()).isEqualTo(22);
        assertThat(staging.device()).isEqualTo("259:3");
        assertThat(staging.root()).isEqualTo("/");
        assertThat(staging.mountPoint()).isEqualTo(Path.of("/var/lib/kubelet/plugins/pillar/globalmount"));
        assertThat(staging.options()).isEqualTo("rw,noatime");
        assertThat(staging.fsType()).isEqualTo("xfs");
        assertThat(staging.source()).isEqualTo("/dev/nvme1n1");
        assertThat(staging.superOptions()).isEqualTo("rw,attr2,inode64");
        assertThat(staging.readOnly()).isFalse();
        assertThat(info.entries().get(3).root()).isEqualTo("/nvme1n1");
    }

    @Test
    void decodesOctalEscapesInPathsAndSources() {
        MountInfo info = MountInfo.parse(TABLE);
        Path spaced = Path.of("/var/lib/kubelet/pods/a b/mount");
        assertThat(info.entries().get(2).mountPoint()).isEqualTo(spaced);
        assertThat(info.entries().get(2).readOnly()).isTrue();
        assertThat(info.entries().get(4).source()).isEqualTo("tmp\\fs");
        assertThat(MountInfo.unescape("a\\011b\\012c")).isEqualTo("a\tb\nc");
        assertThat(MountInfo.unescape("trailing\\04")).isEqualTo("trailing\\04");
        assertThat(MountInfo.unescape("not\\999octal")).isEqualTo("not\\999octal");
    }

    @Test
    void theLastMountAtAPathIsTheOneOnTop() {
        MountInfo info = MountInfo.parse(TABLE);
        Path spaced = Path.of("/var/lib/kubelet/pods/a b/mount");
        assertThat(info.countAt(spaced)).isEqualTo(2);
        assertThat(info.topAt(spaced)).get().extracting(MountEntry::fsType).isEqualTo("tmpfs");
        assertThat(info.topAt(Path.of("/nowhere"))).isEmpty();
        assertThat(info.topAt(Path.of("/var/lib/kubelet/plugins/pillar/./globalmount"))).isPresent();
    }

    @Test
    void malformedLinesAreErrorsNotSkipped() {
        assertThatThrownBy(() -> MountInfo.parse("22 1 252:0 / / rw shared:1 ext4 /dev/vda rw\n"))
                .hasMessageContaining("line 1 is malformed");
        assertThatThrownBy(() -> MountInfo.parse("x 1 252:0 / / rw - ext4 /dev/vda rw\n"))
                .hasMessageContaining("bad mount ID");
        assertThatThrownBy(() -> MountInfo.parse("22 1 252 / / rw - ext4 /dev/vda rw\n"))
                .hasMessageContaining("major:minor");
        assertThatThrownBy(() -> MountInfo.parse("22 1 252:0 / / rw - ext4 /dev/vda rw extra\n"))
                .hasMessageContaining("malformed");
        assertThat(MountInfo.parse("\n").entries()).isEmpty();
    }
}
