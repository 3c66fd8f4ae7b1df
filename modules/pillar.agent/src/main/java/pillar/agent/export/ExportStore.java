package pillar.agent.export;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Stream;

import pillar.agent.state.DamagedRecords;
import pillar.runtime.durable.RecordDirectory;
import pillar.api.value.VolumeId;
import pillar.runtime.durable.DamagedRecordException;

/**
 * The durable export records, one file per volume under {@code <state-dir>/exports/}, written atomically
 * and readable by the agent's user only (mode 0600: a record may hold DH-HMAC-CHAP secrets). A volume's
 * file holds either its NVMe-oF {@link ExportRecord} or its {@link NfsExportRecord}; the NVMe-oF calls
 * ({@link #read}, {@link #list}) never return an NFS one, the NFS calls never an NVMe-oF one.
 *
 * <p>A damaged record (unreadable, unparsable, or naming another volume) is never taken for an absent
 * one: reading it throws, and a listing leaves it out and reports it ({@link DamagedRecords}); it is
 * never deleted. One damaged record therefore costs its own volume only.
 */
public final class ExportStore {
    private final RecordDirectory records;
    private final DamagedRecords damaged;

    public ExportStore(Path stateDir) {
        this(stateDir, new DamagedRecords());
    }

    /** The records under {@code stateDir}, the damaged ones reported to {@code damaged}. */
    public ExportStore(Path stateDir, DamagedRecords damaged) {
        this.records = RecordDirectory.open(stateDir.resolve("exports"), "", "the export record", true);
        this.damaged = damaged;
    }

    public Optional<ExportRecord> read(VolumeId volume) {
        return records.read(volume).filter(text -> !NfsExportRecord.isNfs(text)).map(text -> parse(records.fileOf(volume), text));
    }

    /**
     * The volumes whose record is damaged now (read just now): their kernel exports are neither
     * re-applied nor pruned as orphans, they stay as they are for the operator.
     */
    public Set<VolumeId> damagedVolumes() {
        Set<VolumeId> volumes = new TreeSet<>(java.util.Comparator.comparing(VolumeId::value));
        for (Path file : records.files()) {
            try {
                String text = text(file);
                if (NfsExportRecord.isNfs(text)) {
                    parseNfs(file, text);
                } else {
                    parse(file, text);
                }
            } catch (RuntimeException e) {
                validName(file).ifPresent(volumes::add);
            }
        }
        return volumes;
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

    /** Every NFS export record, in volume order; a damaged one is reported and left out. */
    public List<NfsExportRecord> listNfs() {
        List<NfsExportRecord> listed = new ArrayList<>();
        for (Path file : records.files()) {
            whole(file).filter(NfsExportRecord::isNfs).ifPresent(text -> parsed(file, () -> parseNfs(file, text)).ifPresent(listed::add));
        }
        return listed;
    }

    /** Removes the volume's record, durably; a damaged one is no longer reported. */
    public void delete(VolumeId volume) {
        records.delete(volume);
        damaged.healed(records.fileOf(volume));
    }

    /**
     * Every NVMe-oF record, in volume order. A damaged record is left out and reported
     * ({@link DamagedRecords}: logged, counted, listed in GetCapabilities), never skipped silently.
     */
    public List<ExportRecord> list() {
        List<ExportRecord> listed = new ArrayList<>();
        for (Path file : records.files()) {
            whole(file).filter(text -> !NfsExportRecord.isNfs(text)).ifPresent(text -> parsed(file, () -> parse(file, text))
                    .ifPresent(listed::add));
        }
        return listed;
    }

    /** The file's text, or empty after reporting it damaged (unreadable, or not named after a volume). */
    private Optional<String> whole(Path file) {
        if (validName(file).isEmpty()) {
            damaged.report("export", file, "its name is not a volume ID");
            return Optional.empty();
        }
        try {
            return Optional.of(text(file));
        } catch (UncheckedIOException e) {
            damaged.report("export", file, e.getCause().getMessage());
            return Optional.empty();
        }
    }

    /** The parsed record, or empty after reporting it damaged; a record read whole is healed. */
    private <R> Optional<R> parsed(Path file, java.util.function.Supplier<R> parse) {
        try {
            R record = parse.get();
            damaged.healed(file);
            return Optional.of(record);
        } catch (IllegalStateException e) {
            damaged.report("export", file, e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
            return Optional.empty();
        }
    }

    private static Optional<VolumeId> validName(Path file) {
        try {
            return Optional.of(VolumeId.of(file.getFileName().toString()));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
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
            throw new DamagedRecordException("the export record " + file + " is damaged (" + e.getMessage()
                    + "); an operator must restore or remove it", e);
        }
    }
}
