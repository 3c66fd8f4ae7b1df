package pillar.agent.backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Which device or file a path names, symbolic links followed: a block device by its device number alone
 * ({@code st_rdev}), so that any node of it matches ({@code /dev/zd0}, {@code /dev/zvol/...}, a container's own
 * node); anything else by its file system and inode (the tests' fake devices are regular files). Equal
 * identities name the same thing.
 *
 * @param block whether it is a block device
 * @param rdev  a block device's device number, else 0
 * @param dev   the file system of anything else, else 0
 * @param inode the inode of anything else, else 0
 */
public record DeviceIdentity(boolean block, long rdev, long dev, long inode) {
    private static final int S_IFMT = 0170000;
    private static final int S_IFBLK = 0060000;

    /** What {@code path} names now; empty when it cannot be looked at (gone, not permitted). */
    public static Optional<DeviceIdentity> of(Path path) {
        try {
            Map<String, Object> stat = Files.readAttributes(path, "unix:mode,rdev,dev,ino");
            boolean block = ((Integer) stat.get("mode") & S_IFMT) == S_IFBLK;
            return Optional.of(block ? new DeviceIdentity(true, (Long) stat.get("rdev"), 0, 0)
                    : new DeviceIdentity(false, 0, (Long) stat.get("dev"), (Long) stat.get("ino")));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return Optional.empty();
        }
    }
}
