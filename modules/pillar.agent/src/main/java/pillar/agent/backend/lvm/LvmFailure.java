package pillar.agent.backend.lvm;

import java.util.Locale;

import pillar.runtime.exec.CommandFailedException;

/**
 * What a failed LVM command means, recognised from its exit status and stderr. LVM exits 5
 * (ECMD_FAILED) for every processing failure and 3 (EINVALID_CMD_LINE) for a refused argument, so
 * the message decides. The messages are LVM 2.03's, captured from the real tools in the test VM
 * (see the test resources {@code pillar/agent/backend/lvm/}):
 * <ul>
 *   <li>{@code Failed to find logical volume "vg0/pvc-1"} (lvs, lvremove),
 *       {@code Logical volume pvc-1 not found in volume group vg0.} (lvextend) and
 *       {@code Snapshot origin LV pvc-1 not found in Volume group vg0.} (lvcreate -s);</li>
 *   <li>{@code Volume group "vg0" not found} then {@code Cannot process volume group vg0};</li>
 *   <li>{@code Pool pool0 not found in Volume group vg0.};</li>
 *   <li>{@code Logical Volume "pvc-1" already exists in volume group "vg0"};</li>
 *   <li>{@code Volume group "vg0" has insufficient free space (81 extents): 2560 required.} (lvcreate) and
 *       {@code Insufficient free space: 2528 extents needed, but only 64 available} (lvextend);</li>
 *   <li>{@code Logical volume vg0/pvc-1 in use.} (lvremove of an open LV).</li>
 * </ul>
 */
enum LvmFailure {
    LV_NOT_FOUND,
    VG_NOT_FOUND,
    POOL_NOT_FOUND,
    EXISTS,
    NO_SPACE,
    IN_USE,
    /** Anything else, including a timeout. */
    OTHER;

    private static final int ECMD_FAILED = 5;

    static LvmFailure of(CommandFailedException e) {
        if (e.timedOut() || e.exitCode() != ECMD_FAILED) {
            return OTHER;
        }
        // the first line that says something decides; LVM indents its messages by two spaces
        for (String raw : e.stderr().split("\n")) {
            String line = raw.strip();
            LvmFailure failure = ofLine(line);
            if (failure != OTHER) {
                return failure;
            }
        }
        return OTHER;
    }

    private static LvmFailure ofLine(String line) {
        String lower = line.toLowerCase(Locale.ROOT);
        if (line.startsWith("Failed to find logical volume ")
                || line.startsWith("Logical volume ") && lower.contains(" not found in volume group ")
                || lower.contains("origin") && lower.contains(" not found in volume group ")) {
            return LV_NOT_FOUND;
        }
        if (line.startsWith("Volume group ") && line.endsWith(" not found")) {
            return VG_NOT_FOUND;
        }
        if (line.startsWith("Pool ") && lower.contains(" not found in volume group ")) {
            return POOL_NOT_FOUND;
        }
        if (lower.startsWith("logical volume ") && lower.contains(" already exists in volume group ")) {
            return EXISTS;
        }
        if (lower.contains("insufficient free space")) {
            return NO_SPACE;
        }
        if (line.startsWith("Logical volume ") && (line.endsWith(" in use.") || lower.contains("contains a filesystem in use"))) {
            return IN_USE;
        }
        return OTHER;
    }
}
