package pillar.agent.backend.zfs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import pillar.agent.backend.BackendException.Kind;
import pillar.agent.backend.BackendException;
import pillar.agent.backend.DeviceWait;
import pillar.agent.backend.Texts;
import pillar.agent.backend.zfs.ZfsOutput.Property;
import pillar.api.value.ByteSize;
import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * The {@code zfs} commands of snapshots, clones and copies below one parent dataset, one method a
 * command (a send/receive is one pipe), each with its deadline. Names come from {@link ZfsSnapshots},
 * built only from validated IDs; properties are {@code name=value} pairs of the backend's own.
 */
final class ZfsSnapshotCommands {
    /** How a destroy ended when it did not throw. */
    enum Destroyed { GONE, HAS_DEPENDENTS, BUSY }

    private final ProcessRunner runner;
    private final Duration timeout;
    private final String parent;

    ZfsSnapshotCommands(ProcessRunner runner, Duration timeout, String parent) {
        this.runner = runner;
        this.timeout = timeout;
        this.parent = parent;
    }

    /** {@code zfs snapshot -o p=v... DATASET@NAME}: false when a snapshot of that name exists already. */
    boolean snapshot(String snapshot, List<String> properties) {
        List<String> argv = new ArrayList<>(List.of("zfs", "snapshot"));
        properties.forEach(p -> argv.addAll(List.of("-o", p)));
        argv.add(snapshot);
        try {
            run(argv);
            return true;
        } catch (CommandFailedException e) {
            return switch (ZfsFailure.of(e)) {
                case EXISTS -> false;
                case NOT_FOUND -> throw new BackendException(Kind.NOT_FOUND, "the source of " + snapshot + " does not exist", e);
                case NO_SPACE -> throw new BackendException(Kind.NO_SPACE, parent + " has no room for " + snapshot, e);
                default -> throw BackendException.failed("zfs snapshot " + snapshot + " failed", e);
            };
        }
    }

    /** {@code zfs clone -o p=v... SNAPSHOT TARGET}: false when the target exists already. */
    boolean clone(String snapshot, String target, List<String> properties) {
        List<String> argv = new ArrayList<>(List.of("zfs", "clone"));
        properties.forEach(p -> argv.addAll(List.of("-o", p)));
        argv.addAll(List.of(snapshot, target));
        try {
            run(argv);
            return true;
        } catch (CommandFailedException e) {
            return switch (ZfsFailure.of(e)) {
                case EXISTS -> false;
                case NOT_FOUND -> throw new BackendException(Kind.NOT_FOUND, snapshot + " does not exist", e);
                case NO_SPACE -> throw new BackendException(Kind.NO_SPACE, parent + " has no room for " + target, e);
                default -> throw BackendException.failed("zfs clone of " + snapshot + " to " + target + " failed", e);
            };
        }
    }

    /** The state of a receive: absent, partial with its resume token, or complete. */
    record Received(String token, boolean exists) {
        static final Received ABSENT = new Received("", false);
        static final Received COMPLETE = new Received("", true);

        static Received partial(String token) {
            return new Received(token, true);
        }

        boolean partial() {
            return !token.isEmpty();
        }
    }

    /** {@code zfs send -nP SNAPSHOT}: the estimated size in bytes of its full stream. */
    long streamSize(String snapshot) {
        try {
            return ZfsStreams.size(runner.run(new Command(List.of("zfs", "send", "-nP", snapshot), timeout)));
        } catch (CommandFailedException e) {
            throw ZfsFailure.of(e) == ZfsFailure.NOT_FOUND ? new BackendException(Kind.NOT_FOUND, snapshot + " does not exist", e)
                    : BackendException.failed("zfs send -nP " + snapshot + " failed", e);
        }
    }

    /** {@code zfs send -nv -t TOKEN}: the bytes of the stream a partial receive holds (its token says). */
    long resumedAt(String token) {
        try {
            return ZfsStreams.resumedAt(runner.run(new Command(List.of("zfs", "send", "-nv", "-t", token), timeout)));
        } catch (CommandFailedException e) {
            throw BackendException.failed("zfs send -nv -t of a resume token failed", e);
        }
    }

    /**
     * {@code zfs send SNAPSHOT | zfs recv -s -u -o p=v... TARGET}, or the rest of a partial receive
     * ({@code zfs send -t TOKEN | zfs recv -s -u TARGET}), relayed through the agent
     * ({@link ProcessRunner#relay}): the agent's death or a stop of {@code flow} leaves the partial state
     * for a resume, and no byte moving for the commands' timeout is a failure. Failures: NOT_FOUND without the snapshot, NO_SPACE, else FAILED.
     */
    ProcessRunner.Relayed receiveResumable(String snapshot, Received state, String target, List<String> properties,
                                            ProcessRunner.Flow flow) {
        List<String> receive = new ArrayList<>(List.of("zfs", "recv", "-s", "-u"));
        List<String> send = state.partial() ? List.of("zfs", "send", "-t", state.token()) : List.of("zfs", "send", snapshot);
        if (!state.partial()) {
            properties.forEach(p -> receive.addAll(List.of("-o", p)));
        }
        receive.add(target);
        try {
            return runner.relay(new Command(send, timeout), new Command(receive, timeout), flow);
        } catch (CommandFailedException e) {
            throw switch (ZfsFailure.of(e)) {
                case NOT_FOUND -> new BackendException(Kind.NOT_FOUND, snapshot + " does not exist", e);
                case NO_SPACE -> new BackendException(Kind.NO_SPACE, parent + " has no room for a copy of " + snapshot, e);
                default -> BackendException.failed("zfs send " + snapshot + (state.partial() ? " (resumed)" : "") + " | zfs recv "
                        + target + " failed", e);
            };
        }
    }

    /** {@code zfs recv -A TARGET}: deletes a partial receive's saved state (and the new dataset it made). */
    void abortReceive(String target) {
        try {
            run(List.of("zfs", "recv", "-A", target));
        } catch (CommandFailedException e) {
            throw BackendException.failed("zfs recv -A " + target + " failed", e);
        }
    }

    /** {@code zfs rename FROM TO} of a zvol. */
    void rename(String from, String to) {
        try {
            run(List.of("zfs", "rename", from, to));
        } catch (CommandFailedException e) {
            throw BackendException.failed("zfs rename " + from + " " + to + " failed", e);
        }
    }

    /**
     * {@code zfs rename -u FROM TO} of a filesystem that is not mounted: {@code -u} has libzfs neither unmount
     * nor remount anything (its unmount and remount of a mounted one commit the shares, which runs
     * exportfs -ra: docs/nfs.md fact 11), so the caller unmounts a mounted one first with umount(8).
     */
    void renameUnmounted(String from, String to) {
        try {
            run(List.of("zfs", "rename", "-u", from, to));
        } catch (CommandFailedException e) {
            throw BackendException.failed("zfs rename -u " + from + " " + to + " failed", e);
        }
    }

    /**
     * {@code zfs set volsize=N DATASET} of a zvol that is not (yet) a volume's by its name. A zvol just
     * cloned or received is "busy" while the module still makes its block device: retried for a
     * moment ({@link DeviceWait#whileBusy}), as a destroy is.
     */
    void setVolsize(String dataset, ByteSize volsize) {
        DeviceWait.whileBusy(DeviceWait.BUSY_GRACE, () -> {
            try {
                run(List.of("zfs", "set", "volsize=" + volsize.bytes(), dataset));
                return java.util.Optional.empty();
            } catch (CommandFailedException e) {
                return switch (ZfsFailure.of(e)) {
                    case BUSY -> java.util.Optional.of(BackendException.failed("zfs set volsize of " + dataset + " failed", e));
                    case NO_SPACE -> throw new BackendException(Kind.NO_SPACE, parent + " has no room to grow " + dataset
                            + " to " + volsize, e);
                    default -> throw BackendException.failed("zfs set volsize of " + dataset + " failed", e);
                };
            }
        });
    }

    /** {@code zfs set refquota=N DATASET} of a filesystem that is not (yet) a volume's by its name. */
    void setRefquota(String dataset, ByteSize refquota) {
        try {
            run(List.of("zfs", "set", "refquota=" + refquota.bytes(), dataset));
        } catch (CommandFailedException e) {
            throw BackendException.failed("zfs set refquota of " + dataset + " failed", e);
        }
    }

    /**
     * {@code zfs set canmount=on DATASET} of a filesystem cloned or received with {@code canmount=noauto}: libzfs
     * changes canmount to on or noauto without unmounting, mounting or sharing anything (it gathers a changelist
     * only for canmount=off of a mounted dataset), so the caller mounts it itself with mount.zfs.
     */
    void setCanmountOn(String dataset) {
        try {
            run(List.of("zfs", "set", "canmount=on", dataset));
        } catch (CommandFailedException e) {
            throw BackendException.failed("zfs set canmount=on of " + dataset + " failed", e);
        }
    }

    /**
     * {@code zfs list -r -d 1 -t filesystem,volume} of {@code dataset}: the datasets directly below it (not
     * itself, not its snapshots), in the order zfs prints them.
     */
    List<String> children(String dataset) {
        try {
            return ZfsOutput.rows(run(List.of("zfs", "list", "-Hp", "-r", "-d", "1", "-t", "filesystem,volume", "-o", "name", dataset)), 1)
                    .stream().map(List::getFirst).filter(name -> !name.equals(dataset)).toList();
        } catch (CommandFailedException e) {
            throw BackendException.failed("zfs list of the datasets below " + dataset + " failed", e);
        }
    }

    /**
     * {@code zfs destroy [-d|-r] NAME}: {@code -d} defers a snapshot's destruction while clones depend on
     * it, {@code -r} takes a dataset's snapshots with it. A missing one is {@link Destroyed#GONE}.
     */
    Destroyed destroy(String name, String flag) {
        List<String> argv = new ArrayList<>(List.of("zfs", "destroy"));
        if (!flag.isEmpty()) {
            argv.add(flag);
        }
        argv.add(name);
        try {
            run(argv);
            return Destroyed.GONE;
        } catch (CommandFailedException e) {
            return switch (ZfsFailure.of(e)) {
                case NOT_FOUND -> Destroyed.GONE;
                case HAS_DEPENDENTS -> Destroyed.HAS_DEPENDENTS;
                case BUSY -> Destroyed.BUSY;
                default -> throw BackendException.failed("zfs destroy of " + name + " failed", e);
            };
        }
    }

    /**
     * {@code zfs get -Hp -r -t snapshot} of the parent: these properties of every snapshot below it, by
     * name ({@code dataset@snapshot}); UNAVAILABLE without the parent.
     */
    Map<String, Map<String, Property>> snapshots(String properties) {
        try {
            return ZfsOutput.sourcedByDataset(run(List.of("zfs", "get", "-Hp", "-r", "-t", "snapshot",
                    "-o", "name,property,value,source", properties, parent)));
        } catch (CommandFailedException e) {
            if (ZfsFailure.of(e) == ZfsFailure.NOT_FOUND) {
                throw new BackendException(Kind.UNAVAILABLE, "parent dataset " + parent + " is not available: "
                        + Texts.oneLine(e.stderr()), e);
            }
            throw BackendException.failed("zfs get of the snapshots below " + parent + " failed", e);
        }
    }

    private String run(List<String> argv) {
        return runner.run(new Command(argv, timeout)).stdout();
    }
}
