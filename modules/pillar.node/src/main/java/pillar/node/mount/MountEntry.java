package pillar.node.mount;

import java.nio.file.Path;

/**
 * One line of {@code /proc/self/mountinfo} (proc(5)), with the escapes decoded.
 *
 * @param id           the mount's unique ID
 * @param parentId     the parent mount's ID
 * @param device       {@code major:minor} of the filesystem's device ({@code st_dev})
 * @param root         the directory of the filesystem that forms this mount's root (not "/" for a bind
 *                     mount of a subdirectory or of a single file)
 * @param mountPoint   where it is mounted, relative to the process's root
 * @param options      per-mount options ({@code rw,nosuid,...})
 * @param fsType       filesystem type, e.g. {@code ext4}
 * @param source       the mount source, e.g. {@code /dev/nvme1n1}, or "none"
 * @param superOptions per-superblock options
 */
public record MountEntry(int id, int parentId, String device, String root, Path mountPoint, String options,
                         String fsType, String source, String superOptions) {

    /** Whether the per-mount options say read-only. */
    public boolean readOnly() {
        for (String option : options.split(",")) {
            if (option.equals("ro")) {
                return true;
            }
        }
        return false;
    }
}
