package pillar.agent.fencing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import pillar.api.durable.AtomicFiles;
import pillar.api.fencing.FencingMark;
import pillar.api.value.VolumeId;

/**
 * The durable fencing marks, one file per volume under {@code <state-dir>/generations/} in the
 * text form of {@link MarkFormat}, written atomically (temp file, fsync, rename, fsync of the
 * directory). The directory is a hostPath, so the marks survive restarts and reboots. Tombstones
 * are never removed.
 */
public final class MarkStore {
    private final Path dir;

    public MarkStore(Path stateDir) {
        this.dir = stateDir.resolve("generations");
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the fencing directory " + dir, e);
        }
        AtomicFiles.removeLeftovers(dir);
    }

    /** The volume's mark, or empty if none was ever written. A damaged file is an error, never "no mark". */
    public Optional<FencingMark> read(VolumeId volume) {
        Path file = dir.resolve(volume.value());
        try {
            return AtomicFiles.read(file, "the fencing mark").map(MarkFormat::parse);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the fencing mark " + file + " is damaged (" + e.getMessage()
                    + "); refusing to act on volume " + volume + " until an operator restores or removes it", e);
        }
    }

    public void write(VolumeId volume, FencingMark mark) {
        AtomicFiles.write(dir.resolve(volume.value()), MarkFormat.encode(mark).getBytes(StandardCharsets.UTF_8));
    }
}
