package pillar.runtime.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
    @TempDir
    Path dir;

    @Test
    void writesReplaceWholeAndLeaveNoTemporaryFiles() throws IOException {
        Path target = dir.resolve("sub/mark");
        AtomicFiles.write(target, "one".getBytes(StandardCharsets.UTF_8));
        AtomicFiles.write(target, "two".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(target)).isEqualTo("two");
        try (var files = Files.list(target.getParent())) {
            assertThat(files).containsExactly(target);
        }
    }

    @Test
    void leftoversOfACrashAreRecognisedAndRemoved() throws IOException {
        Path leftover = dir.resolve(".tmp-mark-123");
        Files.writeString(leftover, "torn");
        Path real = dir.resolve("mark");
        AtomicFiles.write(real, new byte[] {1});
        assertThat(AtomicFiles.isTemporary(leftover)).isTrue();
        assertThat(AtomicFiles.isTemporary(real)).isFalse();
        AtomicFiles.removeLeftovers(dir);
        assertThat(leftover).doesNotExist();
        assertThat(real).exists();
    }

    @Test
    void deleteIsIdempotent() {
        Path target = dir.resolve("gone");
        AtomicFiles.write(target, new byte[0]);
        AtomicFiles.delete(target);
        AtomicFiles.delete(target);
        assertThat(target).doesNotExist();
    }

    @Test
    void aMissingFileReadsAsNoneAndAnUnreadableOneIsAnErrorNamingIt() throws IOException {
        assertThat(AtomicFiles.read(dir.resolve("none"), "the record")).isEmpty();
        AtomicFiles.write(dir.resolve("mark"), "gen 3".getBytes(StandardCharsets.UTF_8));
        assertThat(AtomicFiles.read(dir.resolve("mark"), "the record")).contains("gen 3");
        Path directory = Files.createDirectories(dir.resolve("not-a-file"));
        assertThatThrownBy(() -> AtomicFiles.read(directory, "the record")).isInstanceOf(UncheckedIOException.class)
                .hasMessage("cannot read the record " + directory);
    }

    @Test
    void aPrivateFileIsReadableByItsOwnerOnlyAndStaysSoWhenRewritten() throws IOException {
        Path target = dir.resolve("secret");
        AtomicFiles.write(target, "open".getBytes(StandardCharsets.UTF_8));
        AtomicFiles.writePrivate(target, "one".getBytes(StandardCharsets.UTF_8));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-------");
        AtomicFiles.writePrivate(target, "two".getBytes(StandardCharsets.UTF_8));
        assertThat(Files.readString(target)).isEqualTo("two");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target))).isEqualTo("rw-------");
    }
}
