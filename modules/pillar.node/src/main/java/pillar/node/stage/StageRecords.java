package pillar.node.stage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import pillar.api.durable.AtomicFiles;
import pillar.api.value.VolumeId;

/**
 * The durable stage records: one file {@code <state dir>/<volume id>.stage} per volume, written
 * atomically ({@link AtomicFiles}: temp file, fsync, rename, fsync of the directory), so after a
 * crash a record is either the old one or the new one. The file name comes from a validated
 * {@link VolumeId}, so no request can name another path.
 */
public final class StageRecords {
    private static final String SUFFIX = ".stage";

    private final Path dir;

    /** Uses {@code dir}, creating it, and removes temporary files a crash left there. */
    public StageRecords(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the node state directory " + dir, e);
        }
        AtomicFiles.removeLeftovers(dir);
    }

    public Path dir() {
        return dir;
    }

    /** The record of {@code volume}, if it has one; a malformed record is a {@link StageRecordException}. */
    public Optional<StageRecord> read(VolumeId volume) {
        Path file = fileOf(volume);
        Optional<String> text;
        try {
            text = AtomicFiles.read(file, "the stage record");
        } catch (UncheckedIOException e) {
            throw new StageRecordException(e.getMessage() + ": " + e.getCause().getMessage(), e);
        }
        if (text.isEmpty()) {
            return Optional.empty();
        }
        StageRecord record = StageRecordFormat.parse(text.get(), file.toString());
        if (!record.volume().equals(volume)) {
            throw new StageRecordException(file + " holds the record of another volume (" + record.volume() + ")");
        }
        return Optional.of(record);
    }

    public void write(StageRecord record) {
        AtomicFiles.write(fileOf(record.volume()), StageRecordFormat.format(record).getBytes(StandardCharsets.UTF_8));
    }

    /** Removes the record; idempotent. */
    public void delete(VolumeId volume) {
        AtomicFiles.delete(fileOf(volume));
    }

    /** Every record, and the files that could not be read (which callers must treat as "unknown", not "absent"). */
    public Scan scan() {
        List<StageRecord> records = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files.sorted()::iterator) {
                String name = file.getFileName().toString();
                if (AtomicFiles.isTemporary(file) || !name.endsWith(SUFFIX)) {
                    continue;
                }
                try {
                    records.add(StageRecordFormat.parse(Files.readString(file, StandardCharsets.UTF_8), file.toString()));
                } catch (IOException | StageRecordException e) {
                    unreadable.add(file + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            throw new StageRecordException("cannot list " + dir + ": " + e.getMessage(), e);
        }
        return new Scan(records, unreadable);
    }

    private Path fileOf(VolumeId volume) {
        return dir.resolve(volume.value() + SUFFIX);
    }

    /** The result of {@link #scan()}. */
    public record Scan(List<StageRecord> records, List<String> unreadable) {
        public Scan {
            records = List.copyOf(records);
            unreadable = List.copyOf(unreadable);
        }
    }
}
