package pillar.agent.export;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

import pillar.runtime.durable.RecordDirectory;
import pillar.api.value.VolumeId;

/**
 * The durable export records, one file per volume under {@code <state-dir>/exports/}, written atomically
 * and readable by the agent's user only (mode 0600: a record may hold DH-HMAC-CHAP secrets). A volume's
 * file holds either its NVMe-oF {@link ExportRecord} or its {@link NfsExportRecord}; the NVMe-oF calls
 * ({@link #read}, {@link #list}) never return an NFS one, the NFS calls never an NVMe-oF one.
 */
public final class ExportStore {
    private final RecordDirectory records;

    public ExportStore(Path stateDir) {
        this.records = RecordDirectory.open(stateDir.resolve("exports"), "", "the export record", true);
    }

    public Optional<ExportRecord> read(VolumeId volume) {
        return records.read(volume).filter(text -> !NfsExportRecord.isNfs(text)).map(text -> parse(records.fileOf(volume), text));
    }

    public void write(ExportRecord record) {
        records.write(record.volume(), record.encode());
    }

    /** The volume's NFS export record, or empty (also when it has an NVMe-oF one). */
    public Optional<NfsExportRecord> readNfs(VolumeId volume) {
        return records.read(volume).filter(NfsExportRecord::isNfs).map(text -> parseNfs(records.fileOf(volume), text));
    }

    /** Writes the volume's NFS export record atomically, replacing whatever record the volume had. */
    public void write(NfsExportRecord record) {
        records.write(record.volume(), record.encode());
    }

    /** Every NFS export record, in volume order; a damaged one fails the listing. */
    public List<NfsExportRecord> listNfs() {
        List<NfsExportRecord> listed = new ArrayList<>();
        for (Path file : records.files()) {
            String text = text(file);
            if (NfsExportRecord.isNfs(text)) {
                listed.add(parseNfs(file, text));
            }
        }
        return listed;
    }

    public void delete(VolumeId volume) {
        records.delete(volume);
    }

    /** Every record, in volume order. A damaged record fails the whole listing: it is never skipped silently. */
    public List<ExportRecord> list() {
        List<ExportRecord> listed = new ArrayList<>();
        for (Path file : records.files()) {
            String text = text(file);
            if (!NfsExportRecord.isNfs(text)) {
                listed.add(parse(file, text));
            }
        }
        return listed;
    }

    private static String text(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the export record " + file, e);
        }
    }

    private static NfsExportRecord parseNfs(Path file, String text) {
        return parse(file, text, NfsExportRecord::parse, NfsExportRecord::volume);
    }

    private static ExportRecord parse(Path file, String text) {
        return parse(file, text, ExportRecord::parse, ExportRecord::volume);
    }

    /** {@code text} parsed as the record of the volume {@code file} is named after; anything else is damage. */
    private static <R> R parse(Path file, String text, Function<String, R> parser, Function<R, VolumeId> volume) {
        try {
            R record = parser.apply(text);
            if (!volume.apply(record).value().equals(file.getFileName().toString())) {
                throw new IllegalArgumentException("it names volume " + volume.apply(record));
            }
            return record;
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the export record " + file + " is damaged (" + e.getMessage()
                    + "); an operator must restore or remove it", e);
        }
    }
}
