package pillar.agent.fencing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import pillar.agent.state.DamagedRecords;
import pillar.runtime.durable.RecordDirectory;
import pillar.api.fencing.FencingMark;
import pillar.api.value.VolumeId;
import pillar.runtime.durable.DamagedRecordException;

/**
 * The durable fencing marks, one file per volume under {@code <state-dir>/generations/} in the
 * text form of {@link MarkFormat}, written atomically (temp file, fsync, rename, fsync of the
 * directory). The directory is a hostPath, so the marks survive restarts and reboots. Tombstones
 * are never removed. A damaged mark is reported ({@link DamagedRecords}) and left on disk: its volume's
 * calls are refused, every other volume's go on.
 */
public final class MarkStore {
    private final RecordDirectory marks;
    private final DamagedRecords damaged;

    public MarkStore(Path stateDir) {
        this(stateDir, new DamagedRecords());
    }

    /** The volumes' marks under {@code stateDir}, the damaged ones reported to {@code damaged}. */
    public MarkStore(Path stateDir, DamagedRecords damaged) {
        this(stateDir, "generations", damaged);
    }

    private MarkStore(Path stateDir, String dirName, DamagedRecords damaged) {
        this.marks = RecordDirectory.open(stateDir.resolve(dirName), "", "the fencing mark", false);
        this.damaged = damaged;
    }

    /**
     * The snapshots' marks, under {@code <state-dir>/snapshot-generations/} beside the volumes', with
     * the same semantics. A snapshot ID has a volume ID's grammar, so it keys its file as a
     * {@link VolumeId} of the same text ({@link #key}); the two directories never share a file.
     */
    public static MarkStore snapshots(Path stateDir) {
        return snapshots(stateDir, new DamagedRecords());
    }

    /** {@link #snapshots(Path)}, the damaged marks reported to {@code damaged}. */
    public static MarkStore snapshots(Path stateDir, DamagedRecords damaged) {
        return new MarkStore(stateDir, "snapshot-generations", damaged);
    }

    /** Reads every mark once and reports the damaged ones (at start-up: the operator learns of them before any call). */
    public void check() {
        for (Path file : marks.files()) {
            try {
                read(VolumeId.of(file.getFileName().toString()));
            } catch (IllegalStateException e) {
                // reported by read
            } catch (IllegalArgumentException e) {
                damaged.report("mark", file, "its name is not a volume ID");
            }
        }
    }

    /** The key a snapshot's mark (and lock) is kept under in {@link #snapshots}. */
    public static VolumeId key(pillar.api.value.SnapshotId snapshot) {
        return VolumeId.of(snapshot.value());
    }

    /** The volume's mark, or empty if none was ever written. A damaged file is an error, never "no mark". */
    public Optional<FencingMark> read(VolumeId volume) {
        try {
            Optional<FencingMark> mark = marks.read(volume).map(MarkFormat::parse);
            damaged.healed(marks.fileOf(volume));
            return mark;
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            damaged.report("mark", marks.fileOf(volume), e.getMessage());
            throw new DamagedRecordException("the fencing mark " + marks.fileOf(volume) + " is damaged (" + e.getMessage()
                    + "); refusing to act on volume " + volume + " until an operator restores or removes it", e);
        }
    }

    public void write(VolumeId volume, FencingMark mark) {
        marks.write(volume, MarkFormat.encode(mark));
    }
}
