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
    void aDirectoryMovesWholeWithOneRenameIntoNewParentsOrOntoAnEmptyDirectory() throws IOException {
        Path source = dir.resolve("old/agent");
        AtomicFiles.write(source.resolve("identity"), "mine".getBytes(StandardCharsets.UTF_8));
        AtomicFiles.write(source.resolve("exports/vol-1"), "record".getBytes(StandardCharsets.UTF_8));
        long inode = (long) Files.getAttribute(source, "unix:ino");
        Path target = dir.resolve("new/ns.release/agent");
        AtomicFiles.moveDirectory(source, target);
        assertThat(source).doesNotExist();
        assertThat(target.resolve("identity")).hasContent("mine");
        assertThat(target.resolve("exports/vol-1")).hasContent("record");
        assertThat((long) Files.getAttribute(target, "unix:ino")).as("renamed, not copied").isEqualTo(inode);

        Path empty = Files.createDirectories(dir.resolve("empty"));
        AtomicFiles.moveDirectory(target, empty);
        assertThat(empty.resolve("identity")).hasContent("mine");
    }

    @Test
    void aDirectoryIsNeverMovedOntoOneThatHoldsAnything() throws IOException {
        Path source = dir.resolve("a");
        AtomicFiles.write(source.resolve("identity"), "a".getBytes(StandardCharsets.UTF_8));
        Path target = dir.resolve("b");
        AtomicFiles.write(target.resolve("identity"), "b".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> AtomicFiles.moveDirectory(source, target)).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(source.toString()).hasMessageContaining(target.toString());
        assertThat(source.resolve("identity")).hasContent("a");
        assertThat(target.resolve("identity")).hasContent("b");
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
