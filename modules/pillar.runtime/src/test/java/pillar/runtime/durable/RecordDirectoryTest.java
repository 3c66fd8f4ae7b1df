package pillar.runtime.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pillar.api.value.VolumeId;

class RecordDirectoryTest {
    private static final VolumeId A = VolumeId.of("pvc-a");
    private static final VolumeId B = VolumeId.of("pvc-b");

    @TempDir
    Path dir;

    @Test
    void openingCreatesTheDirectoryAndRemovesWhatACrashLeft() throws IOException {
        Path records = dir.resolve("records");
        Files.createDirectories(records);
        Files.writeString(records.resolve(".tmp-pvc-a.stage-123"), "torn");
        RecordDirectory directory = RecordDirectory.open(records, ".stage", "the stage record", false);
        assertThat(directory.dir()).isEqualTo(records);
        try (var files = Files.list(records)) {
            assertThat(files).isEmpty();
        }
        assertThat(RecordDirectory.open(dir.resolve("new/deeper"), "", "the mark", false).dir()).isDirectory();
    }

    @Test
    void aRecordIsWrittenReadListedAndDeletedByItsVolumeId() throws IOException {
        RecordDirectory directory = RecordDirectory.open(dir, ".stage", "the stage record", false);
        assertThat(directory.read(A)).isEmpty();
        directory.write(B, "two");
        directory.write(A, "one");
        directory.write(A, "one again");
        Files.writeString(dir.resolve("notes.txt"), "not a record");
        assertThat(directory.read(A)).contains("one again");
        assertThat(directory.fileOf(A)).isEqualTo(dir.resolve("pvc-a.stage"));
        assertThat(directory.files()).containsExactly(dir.resolve("pvc-a.stage"), dir.resolve("pvc-b.stage"));
        directory.delete(A);
        directory.delete(A);
        assertThat(directory.read(A)).isEmpty();
        assertThat(directory.files()).containsExactly(dir.resolve("pvc-b.stage"));
    }

    @Test
    void ownerOnlyRecordsAreMode0600() throws IOException {
        RecordDirectory directory = RecordDirectory.open(dir, "", "the export record", true);
        directory.write(A, "secret");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(directory.fileOf(A)))).isEqualTo("rw-------");
    }

    @Test
    void anUnreadableRecordIsAnErrorNamingIt() throws IOException {
        RecordDirectory directory = RecordDirectory.open(dir, "", "the fencing mark", false);
        Files.createDirectory(dir.resolve("pvc-a")); // reading a directory fails with an IOException other than "no such file"
        assertThatThrownBy(() -> directory.read(A)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("the fencing mark").hasMessageContaining("pvc-a");
    }
}
