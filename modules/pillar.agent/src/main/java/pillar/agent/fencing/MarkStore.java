package pillar.agent.fencing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import pillar.runtime.durable.RecordDirectory;
import pillar.api.fencing.FencingMark;
import pillar.api.value.VolumeId;

/**
 * The durable fencing marks, one file per volume under {@code <state-dir>/generations/} in the
 * text form of {@link MarkFormat}, written atomically (temp file, fsync, rename, fsync of the
 * directory). The directory is a hostPath, so the marks survive restarts and reboots. Tombstones
 * are never removed.
 */
public final class MarkStore {
    private final RecordDirectory marks;

    public MarkStore(Path stateDir) {
        this(stateDir, "generations");
    }

    private MarkStore(Path stateDir, String dirName) {
        this.marks = RecordDirectory.open(stateDir.resolve(dirName), "", "the fencing mark", false);
    }

    /**
     * The snapshots' marks, under {@code <state-dir>/snapshot-generations/} beside the volumes', with
     * the same semantics. A snapshot ID has a volume ID's grammar, so it keys its file as a
     * {@link VolumeId} of the same text ({@link #key}); the two directories never share a file.
     */
    public static MarkStore snapshots(Path stateDir) {
        return new MarkStore(stateDir, "snapshot-generations");
    }

    /** The key a snapshot's mark (and lock) is kept under in {@link #snapshots}. */
    public static VolumeId key(pillar.api.value.SnapshotId snapshot) {
        return VolumeId.of(snapshot.value());
    }

    /** The volume's mark, or empty if none was ever written. A damaged file is an error, never "no mark". */
    public Optional<FencingMark> read(VolumeId volume) {
        try {
            return marks.read(volume).map(MarkFormat::parse);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the fencing mark " + marks.fileOf(volume) + " is damaged (" + e.getMessage()
                    + "); refusing to act on volume " + volume + " until an operator restores or removes it", e);
        }
    }

    public void write(VolumeId volume, FencingMark mark) {
        marks.write(volume, MarkFormat.encode(mark));
    }
}
