package pillar.runtime.durable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import pillar.api.value.VolumeId;

/**
 * A directory of durable records, one file per volume named after its validated {@link VolumeId}
 * (plus a fixed suffix), so no request can name another path. Every write is atomic
 * ({@link AtomicFiles}); opening creates the directory (durably: its parent is fsynced) and removes the temporary files a crash left.
 * What a record holds, and what a damaged one means, is the caller's: this reads and writes text.
 */
public final class RecordDirectory {
    private final Path dir;
    private final String suffix;
    private final String what;
    private final boolean ownerOnly;

    private RecordDirectory(Path dir, String suffix, String what, boolean ownerOnly) {
        this.dir = dir;
        this.suffix = suffix;
        this.what = what;
        this.ownerOnly = ownerOnly;
    }

    /**
     * The records under {@code dir}, created when missing.
     *
     * @param suffix    appended to the volume ID to name its file ("" for none)
     * @param what      the records' name in errors, e.g. "the export record"
     * @param ownerOnly files readable by their owner only (mode 0600: records that hold secrets)
     */
    public static RecordDirectory open(Path dir, String suffix, String what, boolean ownerOnly) {
        try {
            AtomicFiles.createDirectories(dir);
        } catch (UncheckedIOException e) {
            throw new UncheckedIOException("cannot create the directory of " + what + "s " + dir, e.getCause());
        }
        AtomicFiles.removeLeftovers(dir);
        return new RecordDirectory(dir, suffix, what, ownerOnly);
    }

    public Path dir() {
        return dir;
    }

    /** The file of {@code volume}'s record. */
    public Path fileOf(VolumeId volume) {
        return dir.resolve(volume.value() + suffix);
    }

    /** The record's text, or empty when there is none; a file that cannot be read is an error, never "none". */
    public Optional<String> read(VolumeId volume) {
        return AtomicFiles.read(fileOf(volume), what);
    }

    public void write(VolumeId volume, String text) {
        byte[] content = text.getBytes(StandardCharsets.UTF_8);
        if (ownerOnly) {
            AtomicFiles.writePrivate(fileOf(volume), content);
        } else {
            AtomicFiles.write(fileOf(volume), content);
        }
    }

    /** Removes the record, durably; idempotent. */
    public void delete(VolumeId volume) {
        AtomicFiles.delete(fileOf(volume));
    }

    /** The files of every record, sorted by name; temporary files and other names are left out. */
    public List<Path> files() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> !AtomicFiles.isTemporary(f) && f.getFileName().toString().endsWith(suffix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + what + "s in " + dir, e);
        }
    }
}
