package pillar.node.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.CommandResult;
import pillar.runtime.exec.ProcessRunner;

/** The exact argument lists of the filesystem tools, and how their answers are read. */
class FilesystemToolsTest {
    private final List<Command> ran = new ArrayList<>();
    private final Path device = Path.of("/dev/nvme1n1");

    private FilesystemTools answering(int exit, String stdout) {
        ProcessRunner runner = command -> {
            ran.add(command);
            if (exit != 0) {
                throw new CommandFailedException(command, exit, "some error", false);
            }
            return new CommandResult(stdout, "");
        };
        return new FilesystemTools(runner);
    }

    @Test
    void probeReadsTheTypeOrBlank() {
        assertThat(answering(0, "DEVNAME=/dev/nvme1n1\nUUID=1\nTYPE=xfs\nUSAGE=filesystem\n").probe(device).type())
                .contains("xfs");
        assertThat(ran.get(0).argv()).containsExactly("blkid", "-p", "-o", "export", "/dev/nvme1n1");
        assertThat(ran.get(0).timeout()).isPositive();
        assertThat(answering(2, "").probe(device).blank()).isTrue();
        DeviceContent table = answering(0, "PTUUID=x\nPTTYPE=gpt\n").probe(device);
        assertThat(table.blank()).isFalse();
        assertThat(table.describe()).isEqualTo("a gpt partition table");
        assertThat(answering(0, "UUID=1\n").probe(device).blank()).isFalse();
    }

    @Test
    void aProbeThatFailsIsNeverBlank() {
        assertThatThrownBy(() -> answering(4, "").probe(device)).isInstanceOf(CommandFailedException.class);
        assertThatThrownBy(() -> answering(8, "").probe(device)).isInstanceOf(CommandFailedException.class);
    }

    @Test
    void formatGrowAndSize() {
        FilesystemTools tools = answering(0, "1073741824\n");
        tools.format(device, FsType.EXT4, MkfsOptions.parse("-m 0", FsType.EXT4));
        tools.format(device, FsType.XFS, MkfsOptions.NONE);
        tools.grow(FsType.EXT4, device, Path.of("/k/staging"));
        tools.grow(FsType.XFS, device, Path.of("/k/staging"));
        assertThat(tools.deviceSize(device)).isEqualTo(1L << 30);
        assertThat(ran).extracting(Command::argv).containsExactly(
                List.of("mkfs.ext4", "-q", "-m", "0", "/dev/nvme1n1"),
                List.of("mkfs.xfs", "-q", "/dev/nvme1n1"),
                List.of("resize2fs", "/dev/nvme1n1"),
                List.of("xfs_growfs", "-d", "/k/staging"),
                List.of("blockdev", "--getsize64", "/dev/nvme1n1"));
        assertThatThrownBy(() -> answering(0, "lots\n").deviceSize(device)).hasMessageContaining("not a size");
    }
}
