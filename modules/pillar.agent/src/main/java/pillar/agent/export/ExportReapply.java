package pillar.agent.export;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.logging.Logger;

import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend;
import pillar.api.value.Nqn;
import pillar.api.value.VolumeId;

/**
 * At start-up, re-applies every durable export to the kernel: after a reboot configfs is empty, after
 * a restart it may have drifted. Each record's volume is looked up on its backend first (all of a
 * backend's at once, one report, where it can): its block
 * device may have another name now (a zvol's {@code /dev/zdN} without udev is numbered afresh), and a
 * recorded path must never export whatever device now has that name; a record whose device changed is
 * rewritten. A host's DH-HMAC-CHAP keys are the newest any record holds (the kernel keeps one set per
 * host). The drift found is logged per volume (never a key); each record is then applied exactly (extra hosts,
 * ports and namespaces removed), on its own (one that fails is reported and the others still go
 * through); last, this installation's pillar-csi subsystems with no durable record (left by a crash
 * between the record's removal and the kernel's) are removed, but for those of a damaged record, which
 * stay as they are; another installation's on the same host are never touched ({@link SubsystemOwnership}).
 */
public final class ExportReapply {
    private static final Logger LOG = Logger.getLogger(ExportReapply.class.getName());

    private ExportReapply() {
    }

    /** Returns the failures, one line each; empty when every export is in place. */
    public static List<String> run(ExportStore exports, Exporter exporter, Map<String, VolumeBackend> backends) {
        return run(exports.list(ExportRecord.class), exports, exporter, backends);
    }

    /** {@link #run(ExportStore, Exporter, Map)} with the records as {@code exports} listed them just now. */
    public static List<String> run(List<ExportRecord> records, ExportStore exports, Exporter exporter,
                                   Map<String, VolumeBackend> backends) {
        List<String> failures = new ArrayList<>();
        long start = System.nanoTime();
        LOG.info(() -> "re-applying " + records.size() + " exports");
        exporter.learn(records);
        Map<String, Map<VolumeId, BackendVolume>> current = currentVolumes(records, backends);
        for (ExportRecord recorded : records) {
            try {
                ExportRecord record = withCurrentDevice(recorded, exports, backends, current);
                List<String> drift = exporter.drift(record);
                if (!drift.isEmpty()) {
                    LOG.warning("volume " + record.volume() + ": drift found at start-up: " + String.join("; ", drift));
                }
                exporter.apply(record);
            } catch (RuntimeException e) {
                failures.add(recorded.volume() + ": " + e.getMessage());
                LOG.severe("could not re-apply the export of volume " + recorded.volume() + ": " + e.getMessage());
            }
        }
        Set<String> recordedNqns = records.stream().map(r -> r.subsystem().value()).collect(Collectors.toSet());
        // a damaged record's export stays as the kernel has it, for the operator (never pruned as an orphan)
        exports.damagedVolumes().forEach(v -> recordedNqns.add(ExportRecord.subsystemNqn(v).value()));
        List<Nqn> unrecorded = exporter.exportedSubsystems().stream().filter(n -> !recordedNqns.contains(n.value())).toList();
        // only this installation's: another's on the same host, or one that cannot be told now, is left
        SubsystemOwnership owners = SubsystemOwnership.of(unrecorded, backends);
        if (!owners.foreign().isEmpty() || !owners.unknown().isEmpty()) {
            LOG.info(() -> "left " + owners.foreign().size() + " subsystems of another installation or an operator "
                    + owners.foreign() + " and " + owners.unknown().size() + " whose backend cannot be read now "
                    + owners.unknown());
        }
        for (Nqn orphan : owners.ours()) {
            try {
                exporter.remove(orphan);
                LOG.warning("removed " + orphan + ": exported in the kernel but with no durable record");
            } catch (RuntimeException e) {
                failures.add(orphan + ": " + e.getMessage());
                LOG.severe("could not remove the orphan export " + orphan + ": " + e.getMessage());
            }
        }
        LOG.info(() -> "re-applied " + (records.size() - failures.size()) + " of " + records.size() + " exports in "
                + (System.nanoTime() - start) / 1_000_000 + " ms");
        return failures;
    }

    /**
     * Per backend, the recorded volumes as it finds them now, read at once ({@link VolumeBackend#findAll});
     * a backend whose read fails is left out, and its records are then looked up one by one, so that one
     * volume that cannot be read fails only its own record.
     */
    private static Map<String, Map<VolumeId, BackendVolume>> currentVolumes(List<ExportRecord> records,
                                                                          Map<String, VolumeBackend> backends) {
        Map<String, List<VolumeId>> byBackend = records.stream().collect(Collectors.groupingBy(ExportRecord::backend,
                Collectors.mapping(ExportRecord::volume, Collectors.toList())));
        Map<String, Map<VolumeId, BackendVolume>> current = new HashMap<>();
        byBackend.forEach((name, ids) -> {
            VolumeBackend backend = backends.get(name);
            if (backend == null) {
                return;
            }
            try {
                current.put(name, backend.findAll(ids));
            } catch (RuntimeException e) {
                LOG.warning("backend " + name + ": reading its " + ids.size() + " recorded volumes at once failed ("
                        + e.getMessage() + "); looking them up one by one");
            }
        });
        return current;
    }

    /**
     * The recorded volume as its backend has it now: from {@code current} (one listing per backend, read
     * before) when that backend was listed, else found alone; empty when it is gone. A backend no longer
     * configured is an {@link IllegalStateException}: the record stays and is not applied.
     */
    static Optional<BackendVolume> recordedVolume(String backendName, VolumeId id, Map<String, VolumeBackend> backends,
                                                  Map<String, Map<VolumeId, BackendVolume>> current) {
        VolumeBackend backend = backends.get(backendName);
        if (backend == null) {
            throw new IllegalStateException("its backend " + backendName + " is not configured on this agent any more;"
                    + " the export stays recorded and is not applied");
        }
        Map<VolumeId, BackendVolume> read = current.get(backendName);
        return read != null ? Optional.ofNullable(read.get(id)) : backend.find(id);
    }

    /** The record with the volume's block device as its backend finds it now (rewritten when it moved). */
    private static ExportRecord withCurrentDevice(ExportRecord record, ExportStore exports, Map<String, VolumeBackend> backends,
                                                  Map<String, Map<VolumeId, BackendVolume>> current) {
        Optional<BackendVolume> volume = recordedVolume(record.backend(), record.volume(), backends, current);
        Path device = volume.map(BackendVolume::device).orElseThrow(() -> new IllegalStateException(
                "the volume does not exist on backend " + record.backend() + "; the export stays recorded and is not applied"));
        if (device.equals(record.device())) {
            return record;
        }
        ExportRecord moved = record.withDevice(device);
        exports.write(moved);
        LOG.warning("volume " + record.volume() + ": its device is " + device + " now, was " + record.device() + "; record updated");
        return moved;
    }
}
