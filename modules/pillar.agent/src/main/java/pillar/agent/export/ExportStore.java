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
 * file holds one {@link VolumeExport}: its NVMe-oF {@link ExportRecord} or its {@link NfsExportRecord}, each in
 * the format it always had; a call for one protocol's records never returns (nor parses) another's.
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

    /** The volume's record, whatever its protocol; empty when it has none. */
    public Optional<VolumeExport> read(VolumeId volume) {
        return records.read(volume).map(text -> parse(records.fileOf(volume), text));
    }

    /**
     * The volume's record when it is one of {@code protocol}'s records; empty when it has none or another
     * protocol's (which is then not parsed: a damaged record of another protocol reads as empty here).
     */
    public <R extends VolumeExport> Optional<R> read(VolumeId volume, Class<R> protocol) {
        return records.read(volume).filter(text -> kind(text) == protocol)
                .map(text -> protocol.cast(parse(records.fileOf(volume), text)));
    }

    /**
     * The volumes whose record is damaged now (read just now): their kernel exports are neither
     * re-applied nor pruned as orphans, they stay as they are for the operator.
     */
    public Set<VolumeId> damagedVolumes() {
        Set<VolumeId> volumes = new TreeSet<>(java.util.Comparator.comparing(VolumeId::value));
        for (Path file : records.files()) {
            try {
                parse(file, text(file));
            } catch (RuntimeException e) {
                validName(file).ifPresent(volumes::add);
            }
        }
        return volumes;
    }

    /** Writes the volume's record atomically, replacing whatever record (of any protocol) the volume had. */
    public void write(VolumeExport record) {
        records.write(record.volume(), switch (record) {
            case ExportRecord nvme -> nvme.encode();
            case NfsExportRecord nfs -> nfs.encode();
        });
    }

    /** Removes the volume's record, durably; a damaged one is no longer reported. */
    public void delete(VolumeId volume) {
        records.delete(volume);
        damaged.healed(records.fileOf(volume));
    }

    /**
     * Every record of {@code protocol}, in volume order. A damaged record is left out and reported
     * ({@link DamagedRecords}: logged, counted, listed in GetCapabilities), never skipped silently.
     */
    public <R extends VolumeExport> List<R> list(Class<R> protocol) {
        List<R> listed = new ArrayList<>();
        for (Path file : records.files()) {
            whole(file).filter(text -> kind(text) == protocol)
                    .ifPresent(text -> parsed(file, () -> protocol.cast(parse(file, text))).ifPresent(listed::add));
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

    /** Which protocol's record the text is: an NFS one has its protocol line, an NVMe-oF one (the first kind) none. */
    private static Class<? extends VolumeExport> kind(String text) {
        return NfsExportRecord.isNfs(text) ? NfsExportRecord.class : ExportRecord.class;
    }

    private static VolumeExport parse(Path file, String text) {
        return kind(text) == NfsExportRecord.class ? parse(file, text, NfsExportRecord::parse)
                : parse(file, text, ExportRecord::parse);
    }

    /** {@code text} parsed as the record of the volume {@code file} is named after; anything else is damage. */
    private static VolumeExport parse(Path file, String text, Function<String, VolumeExport> parser) {
        try {
            VolumeExport record = parser.apply(text);
            if (!record.volume().value().equals(file.getFileName().toString())) {
                throw new IllegalArgumentException("it names volume " + record.volume());
            }
            return record;
        } catch (IllegalArgumentException e) {
            throw new DamagedRecordException("the export record " + file + " is damaged (" + e.getMessage()
                    + "); an operator must restore or remove it", e);
        }
    }
}
