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

import pillar.runtime.durable.RecordDirectory;
import pillar.api.value.VolumeId;

/**
 * The durable stage records: one file {@code <state dir>/<volume id>.stage} per volume, written
 * atomically ({@link RecordDirectory}: temp file, fsync, rename, fsync of the directory), so after a
 * crash a record is either the old one or the new one. The file name comes from a validated
 * {@link VolumeId}, so no request can name another path.
 */
public final class StageRecords {
    private static final String SUFFIX = ".stage";

    private final RecordDirectory records;

    /** Uses {@code dir}, creating it, and removes temporary files a crash left there. */
    public StageRecords(Path dir) {
        this.records = RecordDirectory.open(dir, SUFFIX, "the stage record", false);
    }

    public Path dir() {
        return records.dir();
    }

    /** The record of {@code volume}, if it has one; a malformed record is a {@link StageRecordException}. */
    public Optional<StageRecord> read(VolumeId volume) {
        Path file = records.fileOf(volume);
        Optional<String> text;
        try {
            text = records.read(volume);
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
        records.write(record.volume(), StageRecordFormat.format(record));
    }

    /** Removes the record; idempotent. */
    public void delete(VolumeId volume) {
        records.delete(volume);
    }

    /** Every record, and the files that could not be read (which callers must treat as "unknown", not "absent"). */
    public Scan scan() {
        List<StageRecord> found = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        List<Path> files;
        try {
            files = records.files();
        } catch (UncheckedIOException e) {
            throw new StageRecordException(e.getMessage() + ": " + e.getCause().getMessage(), e);
        }
        for (Path file : files) {
            try {
                found.add(StageRecordFormat.parse(Files.readString(file, StandardCharsets.UTF_8), file.toString()));
            } catch (java.nio.file.NoSuchFileException gone) {
                // deleted between the listing and the read (another volume's unstage): absent, not unknown
                continue;
            } catch (IOException | StageRecordException e) {
                unreadable.add(file + ": " + e.getMessage());
            }
        }
        return new Scan(found, unreadable);
    }

    /** The result of {@link #scan()}. */
    public record Scan(List<StageRecord> records, List<String> unreadable) {
        public Scan {
            records = List.copyOf(records);
            unreadable = List.copyOf(unreadable);
        }
    }
}
