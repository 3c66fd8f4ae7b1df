package pillar.agent.export;

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
 * The durable export records, one file per volume under {@code <state-dir>/exports/}, written atomically
 * and readable by the agent's user only (mode 0600: a record may hold DH-HMAC-CHAP secrets).
 */
public final class ExportStore {
    private final RecordDirectory records;

    public ExportStore(Path stateDir) {
        this.records = RecordDirectory.open(stateDir.resolve("exports"), "", "the export record", true);
    }

    public Optional<ExportRecord> read(VolumeId volume) {
        return records.read(volume).map(text -> parse(records.fileOf(volume), text));
    }

    public void write(ExportRecord record) {
        records.write(record.volume(), record.encode());
    }

    public void delete(VolumeId volume) {
        records.delete(volume);
    }

    /** Every record, in volume order. A damaged record fails the whole listing: it is never skipped silently. */
    public List<ExportRecord> list() {
        List<ExportRecord> listed = new ArrayList<>();
        for (Path file : records.files()) {
            try {
                listed.add(parse(file, Files.readString(file, StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the export record " + file, e);
            }
        }
        return listed;
    }

    private static ExportRecord parse(Path file, String text) {
        try {
            ExportRecord record = ExportRecord.parse(text);
            if (!record.volume().value().equals(file.getFileName().toString())) {
                throw new IllegalArgumentException("it names volume " + record.volume());
            }
            return record;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the export record " + file + " is damaged (" + e.getMessage()
                    + "); an operator must restore or remove it", e);
        }
    }
}
