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

import pillar.api.durable.AtomicFiles;
import pillar.api.value.VolumeId;

/**
 * The durable export records, one file per volume under {@code <state-dir>/exports/}, written atomically
 * and readable by the agent's user only (mode 0600: a record may hold DH-HMAC-CHAP secrets).
 */
public final class ExportStore {
    private final Path dir;

    public ExportStore(Path stateDir) {
        this.dir = stateDir.resolve("exports");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the exports directory " + dir, e);
        }
        AtomicFiles.removeLeftovers(dir);
    }

    public Optional<ExportRecord> read(VolumeId volume) {
        Path file = dir.resolve(volume.value());
        return AtomicFiles.read(file, "the export record").map(text -> parse(file, text));
    }

    public void write(ExportRecord record) {
        AtomicFiles.writePrivate(dir.resolve(record.volume().value()), record.encode().getBytes(StandardCharsets.UTF_8));
    }

    public void delete(VolumeId volume) {
        AtomicFiles.delete(dir.resolve(volume.value()));
    }

    /** Every record, in volume order. A damaged record fails the whole listing: it is never skipped silently. */
    public List<ExportRecord> list() {
        List<ExportRecord> records = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(f -> !AtomicFiles.isTemporary(f)).sorted().toList()) {
                records.add(parse(file, Files.readString(file, StandardCharsets.UTF_8)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the export records in " + dir, e);
        }
        return records;
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
