package pillar.agent.backend.zfs;

import pillar.runtime.exec.CommandFailedException;

/**
 * What a failed {@code zfs} command means. zfs exits 1 for every failure (2 for a usage error) and
 * prints {@code cannot <verb> '<dataset>': <reason>}; the reasons are libzfs's fixed texts, as zfs
 * 2.1.11 prints them (captured in the VM: test resources {@code pillar/agent/backend/zfs/}):
 * <ul>
 *   <li>{@code cannot open 'tank/k8s/pvc-1': dataset does not exist} (get, set, destroy, list of a missing dataset);</li>
 *   <li>{@code cannot create 'tank/k8s/pvc-1': parent does not exist}, {@code cannot open 'tank': no such pool}
 *       (create below a missing pool), and {@code ... no such parent 'tank/k8s'} (older releases);</li>
 *   <li>{@code cannot create 'tank/k8s/pvc-1': dataset already exists};</li>
 *   <li>{@code cannot create 'tank/k8s/pvc-1': out of space}; growing a reserved zvol:
 *       {@code cannot set property for 'tank/k8s/pvc-1': size is greater than available space};</li>
 *   <li>{@code cannot destroy 'tank/k8s/pvc-1': dataset is busy} (an nvmet namespace still holds the zvol);
 *       a mounted filesystem in use: {@code cannot unmount '/tank/k8s/pvc-1': pool or dataset is busy}
 *       (libzfs's EZFS_BUSY text; not captured in the VM yet).</li>
 * </ul>
 */
enum ZfsFailure {
    NOT_FOUND,
    NO_PARENT,
    EXISTS,
    NO_SPACE,
    BUSY,
    /** A destroy refused: the zvol has snapshots, or the snapshot has clones (2.1.11: "volume has children", "snapshot has dependent clones"). */
    HAS_DEPENDENTS,
    /** Anything else, including a timeout. */
    OTHER;

    /** zfs's status for a refused operation: 1, and 255 from {@code zfs set} of zfs 2.2 and later (2.3 measured). */
    private static final int FAILED = 1;
    private static final int SET_FAILED = 255;

    static ZfsFailure of(CommandFailedException e) {
        if (e.timedOut() || (e.exitCode() != FAILED && e.exitCode() != SET_FAILED)) {
            return OTHER;
        }
        for (String raw : e.stderr().split("\n")) {
            String line = raw.strip();
            if (line.startsWith("could not find any snapshots to destroy")) {
                return NOT_FOUND; // zfs destroy of a missing snapshot
            }
            if (!line.startsWith("cannot ")) {
                continue;
            }
            if (line.endsWith(": dataset does not exist")) {
                return NOT_FOUND;
            }
            if (line.endsWith(": parent does not exist") || line.endsWith(": no such pool") || line.contains(": no such parent '")
                    || line.contains(": no such pool '")) {
                return NO_PARENT;
            }
            if (line.endsWith(": dataset already exists")) {
                return EXISTS;
            }
            if (line.endsWith(": out of space") || line.endsWith(": size is greater than available space")) {
                return NO_SPACE;
            }
            if (line.endsWith(" has children") || line.endsWith(" has dependent clones")) {
                return HAS_DEPENDENTS;
            }
            if (line.endsWith(": dataset is busy") || line.endsWith(": pool or dataset is busy")) {
                return BUSY;
            }
        }
        return OTHER;
    }
}
