package pillar.agent.backend.zfs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.Creation;
import pillar.agent.backend.Texts;
import pillar.agent.backend.zfs.ZfsOutput.Property;
import pillar.api.value.ByteSize;
import pillar.api.value.VolumeId;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * The {@code zfs} and {@code zpool} commands of one backend: zvols directly below its parent dataset.
 * Each method is one command: it builds the argument list, runs it with the command deadline, parses
 * the scripted output ({@link ZfsOutput}) and says what a failure means ({@link ZfsFailure}), either
 * as the {@link BackendException} every caller makes of it or, where the backend decides what follows,
 * as a result. Which zvols are whose, rounding and size rules are the backend's business.
 *
 * <p>Arguments come only from validated values: the parent from the configuration, dataset names
 * from volume IDs within ZFS's length limit ({@link #dataset}), options from {@link ZfsOptions}'s
 * allow-list, and sizes formatted here.
 */
final class Zfs {
    /** ZFS_MAX_DATASET_NAME_LEN is 256 including the terminating NUL. */
    private static final int MAX_DATASET_NAME = 255;

    private final ProcessRunner runner;
    private final Duration timeout;
    private final String parent;

    /**
     * @param timeout the deadline of each command
     * @param parent  the parent dataset ({@code pool} or {@code pool/path})
     */
    Zfs(ProcessRunner runner, Duration timeout, String parent) {
        this.runner = runner;
        this.timeout = timeout;
        this.parent = parent;
    }

    /** The parent dataset's free and used bytes. */
    record Space(long used, long available) {
        /** Everything the parent could hold: what is used (children and reservations included) plus what is available. */
        long total() {
            return used + available;
        }
    }

    /** The volume's dataset, {@code <parent>/<id>}; INVALID when the name is longer than ZFS allows. */
    String dataset(VolumeId id) {
        String dataset = parent + "/" + id.value();
        if (dataset.length() > MAX_DATASET_NAME) {
            throw new BackendException(Kind.INVALID, "dataset name " + dataset + " is longer than ZFS's " + MAX_DATASET_NAME + " characters");
        }
        return dataset;
    }

    /**
     * {@code zfs create -V} of the volume's zvol: exactly {@code volsize} (a multiple of the options'
     * volblocksize), sparse and compressed as the options say, {@code volmode=dev} (the device without
     * partition scanning), and the user property {@code property=value} set on it. A dataset of that
     * name or too little space is a result; a missing parent is UNAVAILABLE, anything else FAILED.
     */
    Creation create(VolumeId id, ByteSize volsize, ZfsOptions opts, String property, String value) {
        String dataset = dataset(id);
        List<String> argv = new ArrayList<>(List.of("zfs", "create", "-V", Long.toString(volsize.bytes()),
                "-b", Long.toString(opts.volblocksize())));
        if (opts.sparse()) {
            argv.add("-s");
        }
        argv.addAll(List.of("-o", "volmode=dev", "-o", property + "=" + value));
        opts.compression().ifPresent(compression -> argv.addAll(List.of("-o", "compression=" + compression)));
        argv.add(dataset);
        // ZFS takes a volsize that is a multiple of volblocksize as it is (any other it refuses)
        return create(dataset, argv);
    }

    /**
     * {@code zfs create} of the volume's filesystem dataset with {@code refquota}, the backend's
     * {@code name=value} {@code properties} and the user property {@code property=value} set on it
     * (compressed as {@code compression} says, else inherited). A dataset of that name or too little space is
     * a result; a missing parent is UNAVAILABLE, anything else FAILED.
     */
    Creation createFilesystem(VolumeId id, ByteSize refquota, List<String> properties, Optional<String> compression, String property,
                              String value) {
        String dataset = dataset(id);
        // -u: zfs's own mount commits libzfs's shares, which runs exportfs -ra and wipes every export made
        // with exportfs (docs/nfs.md fact 11); the caller mounts it with mountFilesystem
        List<String> argv = new ArrayList<>(List.of("zfs", "create", "-u", "-o", "refquota=" + refquota.bytes()));
        properties.forEach(p -> argv.addAll(List.of("-o", p)));
        argv.addAll(List.of("-o", property + "=" + value));
        compression.ifPresent(c -> argv.addAll(List.of("-o", "compression=" + c)));
        argv.add(dataset);
        return create(dataset, argv);
    }

    /** Runs the {@code zfs create} {@code argv} of {@code dataset}: a taken name or too little space is a result. */
    private Creation create(String dataset, List<String> argv) {
        try {
            run(argv);
        } catch (CommandFailedException e) {
            return switch (ZfsFailure.of(e)) {
                case EXISTS -> new Creation.NameTaken(e);
                case NO_SPACE -> new Creation.NoRoom(e);
                case NO_PARENT, NOT_FOUND -> throw unavailable(e);
                default -> throw BackendException.failed("zfs create of " + dataset + " failed", e);
            };
        }
        return new Creation.Made(false);
    }

    /**
     * Mounts filesystem {@code dataset} at its {@code mountpoint} with {@code mount -t zfs -o zfsutil}
     * (mount.zfs: the mount alone, where {@code zfs mount} also runs exportfs -ra), making the directory first.
     */
    void mountFilesystem(String dataset, String mountpoint) {
        try {
            run(List.of("mkdir", "-p", mountpoint));
            run(List.of("mount", "-t", "zfs", "-o", "zfsutil", dataset, mountpoint));
        } catch (CommandFailedException e) {
            throw BackendException.failed("mounting " + dataset + " at " + mountpoint + " failed", e);
        }
    }

    /**
     * Unmounts a filesystem at {@code mountpoint} with umount(8), not {@code zfs umount} or a {@code zfs destroy}
     * of a mounted dataset, which run exportfs -ra; returns false when it is busy.
     */
    boolean unmountFilesystem(String mountpoint) {
        try {
            run(List.of("umount", mountpoint));
            return true;
        } catch (CommandFailedException e) {
            if (e.stderr().contains("busy")) {
                return false;
            }
            throw BackendException.failed("umount " + mountpoint + " failed", e);
        }
    }

    /** {@code zfs set refquota}: the filesystem's cap becomes exactly {@code refquota}. */
    void setRefquota(VolumeId id, ByteSize refquota) {
        String dataset = dataset(id);
        try {
            run(List.of("zfs", "set", "refquota=" + refquota.bytes(), dataset));
        } catch (CommandFailedException e) {
            throw switch (ZfsFailure.of(e)) {
                case NOT_FOUND -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist below " + parent, e);
                default -> BackendException.failed("zfs set refquota of " + dataset + " failed", e);
            };
        }
    }

    /**
     * {@code zfs set PROPERTY=VALUE} of the volume's dataset: one user property (a ':' in its name) set locally. A user
     * property mounts, unmounts and shares nothing, so no share commit runs (docs/nfs.md fact 11).
     */
    void setUserProperty(VolumeId id, String property, String value) {
        if (!property.contains(":")) {
            throw new IllegalArgumentException(property + " is not a user property");
        }
        String dataset = dataset(id);
        try {
            run(List.of("zfs", "set", property + "=" + value, dataset));
        } catch (CommandFailedException e) {
            throw switch (ZfsFailure.of(e)) {
                case NOT_FOUND -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist below " + parent, e);
                default -> BackendException.failed("zfs set " + property + " of " + dataset + " failed", e);
            };
        }
    }

    /**
     * These properties of every filesystem directly below the parent (never the parent itself), by
     * dataset; none when the parent does not exist, UNAVAILABLE only when {@code parentRequired}.
     */
    Map<String, Map<String, Property>> filesystemsOfParent(String properties, boolean parentRequired) {
        try {
            Map<String, Map<String, Property>> rows = new java.util.LinkedHashMap<>(ZfsOutput.sourcedByDataset(run(List.of("zfs", "get",
                    "-Hp", "-r", "-d", "1", "-t", "filesystem", "-o", "name,property,value,source", properties, parent))));
            rows.remove(parent); // -r -d 1 of a filesystem includes itself
            return rows;
        } catch (CommandFailedException e) {
            if (ZfsFailure.of(e) != ZfsFailure.NOT_FOUND) {
                throw BackendException.failed("zfs get of the datasets of " + parent + " failed", e);
            }
            if (parentRequired) {
                throw unavailable(e);
            }
            return Map.of();
        }
    }

    /**
     * These properties of the volume's dataset with their sources ({@code zfs get}), by name; empty when
     * the dataset does not exist.
     */
    Optional<Map<String, Property>> properties(VolumeId id, String properties) {
        return properties(dataset(id), properties);
    }

    /** These properties of {@code dataset} (a name below the parent) as {@link #properties(VolumeId, String)} reads them. */
    Optional<Map<String, Property>> properties(String dataset, String properties) {
        try {
            return Optional.of(ZfsOutput.sourcedByDataset(run(List.of("zfs", "get", "-Hp", "-o", "name,property,value,source",
                    properties, dataset))).getOrDefault(dataset, Map.of()));
        } catch (CommandFailedException e) {
            if (ZfsFailure.of(e) == ZfsFailure.NOT_FOUND) {
                return Optional.empty();
            }
            throw BackendException.failed("zfs get of " + dataset + " failed", e);
        }
    }

    /** These properties of every zvol directly below the parent, by dataset; UNAVAILABLE without the parent. */
    Map<String, Map<String, Property>> zvolsOfParent(String properties) {
        return zvolsOfParent(properties, true);
    }

    /** As {@link #zvolsOfParent}, but none when the parent does not exist (as of each volume below it). */
    Map<String, Map<String, Property>> zvolsOfParentIfAny(String properties) {
        return zvolsOfParent(properties, false);
    }

    private Map<String, Map<String, Property>> zvolsOfParent(String properties, boolean parentRequired) {
        try {
            return zvolsReport(properties);
        } catch (CommandFailedException e) {
            if (ZfsFailure.of(e) != ZfsFailure.NOT_FOUND) {
                throw BackendException.failed("zfs get of the zvols of " + parent + " failed", e);
            }
            if (parentRequired) {
                throw unavailable(e);
            }
            return Map.of();
        }
    }

    /** The parent's {@code used} and {@code available}; UNAVAILABLE without the parent. */
    Space space() {
        Map<String, String> values = new HashMap<>();
        try {
            for (List<String> row : ZfsOutput.rows(run(List.of("zfs", "get", "-Hp", "-o", "property,value", "available,used", parent)), 2)) {
                values.put(row.get(0), row.get(1));
            }
        } catch (CommandFailedException e) {
            throw ZfsFailure.of(e) == ZfsFailure.NOT_FOUND ? unavailable(e) : BackendException.failed("zfs get of " + parent + " failed", e);
        }
        return new Space(ZfsOutput.requiredBytes(values, "used", parent), ZfsOutput.requiredBytes(values, "available", parent));
    }

    /** The parent's pool's health as {@code zpool list -H -o health} prints it (ONLINE, DEGRADED, ...); UNAVAILABLE when it is not imported. */
    String poolHealth() {
        String pool = parent.split("/", 2)[0];
        try {
            String state = run(List.of("zpool", "list", "-H", "-o", "health", pool)).strip();
            if (!state.matches("[A-Z]{1,16}")) {
                throw new BackendException(Kind.FAILED, "zpool list printed '" + Texts.oneLine(state) + "' as the health of " + pool);
            }
            return state;
        } catch (CommandFailedException e) {
            throw e.stderr().contains(": no such pool") ? new BackendException(Kind.UNAVAILABLE, "pool " + pool
                    + " is not imported: " + Texts.oneLine(e.stderr()), e) : BackendException.failed("zpool list of " + pool + " failed", e);
        }
    }

    /** {@code zfs set volsize}: the zvol becomes exactly {@code volsize}, a multiple of its volblocksize; ZFS shrinks without a word. */
    void setVolsize(VolumeId id, ByteSize volsize) {
        String dataset = dataset(id);
        try {
            run(List.of("zfs", "set", "volsize=" + volsize.bytes(), dataset));
        } catch (CommandFailedException e) {
            throw switch (ZfsFailure.of(e)) {
                case NOT_FOUND -> new BackendException(Kind.NOT_FOUND, "volume " + id + " does not exist below " + parent, e);
                case NO_SPACE -> new BackendException(Kind.NO_SPACE, parent + " has no room to grow " + id + " to " + volsize + ": "
                        + Texts.oneLine(e.stderr()), e);
                default -> BackendException.failed("zfs set volsize of " + dataset + " failed", e);
            };
        }
    }

    /** {@code zfs destroy} of the volume's zvol: empty when it is gone (or was), the failure when something holds it. */
    Optional<BackendException> destroy(VolumeId id) {
        String dataset = dataset(id);
        try {
            run(List.of("zfs", "destroy", dataset));
            return Optional.empty();
        } catch (CommandFailedException e) {
            return switch (ZfsFailure.of(e)) {
                case NOT_FOUND -> Optional.empty();
                case BUSY -> Optional.of(new BackendException(Kind.FAILED, dataset
                        + " is busy: unexport it first (an nvmet namespace or another user still holds the zvol)", e));
                default -> throw BackendException.failed("zfs destroy of " + dataset + " failed", e);
            };
        }
    }

    /** {@code zfs get -r -d 1 -t volume} of the parent: these properties of the zvols directly below it. */
    private Map<String, Map<String, Property>> zvolsReport(String properties) {
        return ZfsOutput.sourcedByDataset(run(List.of("zfs", "get", "-Hp", "-r", "-d", "1", "-t", "volume",
                "-o", "name,property,value,source", properties, parent)));
    }

    /** Every command goes through here, with its deadline. */
    private String run(List<String> argv) {
        return runner.run(new Command(argv, timeout)).stdout();
    }

    private BackendException unavailable(CommandFailedException e) {
        return new BackendException(Kind.UNAVAILABLE, "parent dataset " + parent + " is not available: " + Texts.oneLine(e.stderr())
                + " (is the pool imported and the dataset created?)", e);
    }
}
