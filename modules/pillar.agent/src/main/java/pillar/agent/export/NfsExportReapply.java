package pillar.agent.export;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import pillar.agent.backend.BackendVolume;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsExport;
import pillar.agent.nfs.StateRelease;
import pillar.api.value.VolumeId;

/**
 * At start-up, re-applies every durable NFS export as {@link ExportReapply} does the NVMe-oF ones: nfsd
 * forgets its table at a reboot (docs/nfs.md fact 3: re-applied, the clients' mounts work again). Each
 * record's dataset is looked up on its backend first (one report per backend); a mount path that moved
 * is rewritten in the record and the old path's entries removed; the drift (record vs the listing) is
 * logged; each record is applied on its own (one failing leaves the others). Last, entries on the mount
 * path of a volume of a filesystem backend that has no NFS record are removed (a crash between the
 * record's removal and the server's). A record's clients noted as fencing have their NFSv4 state released
 * once every record is applied (docs/nfs.md fact 14), each note dropped once that is done. Nothing runs
 * when there is no record and no filesystem backend.
 */
public final class NfsExportReapply {
    private static final Logger LOG = Logger.getLogger(NfsExportReapply.class.getName());

    private NfsExportReapply() {
    }

    /** Returns the failures, one line each; empty when every NFS export is in place. */
    public static List<String> run(ExportStore store, NfsExporter exporter, Map<String, VolumeBackend> backends,
                                   Set<String> filesystemBackends) {
        List<NfsExportRecord> records = store.list(NfsExportRecord.class);
        List<String> failures = new ArrayList<>();
        if (records.isEmpty() && filesystemBackends.isEmpty()) {
            return failures;
        }
        LOG.info(() -> "re-applying " + records.size() + " NFS exports");
        List<NfsExport> listing;
        try {
            listing = exporter.exports();
        } catch (RuntimeException e) {
            failures.add("the NFS server's exports cannot be listed: " + e.getMessage());
            LOG.severe(failures.getFirst());
            return failures;
        }
        Map<String, Map<VolumeId, BackendVolume>> current = new HashMap<>();
        records.stream().collect(Collectors.groupingBy(NfsExportRecord::backend, Collectors.mapping(NfsExportRecord::volume,
                Collectors.toList()))).forEach((name, ids) -> {
                    VolumeBackend backend = backends.get(name);
                    if (backend != null) {
                        try {
                            current.put(name, backend.findAll(ids));
                        } catch (RuntimeException e) {
                            LOG.warning("backend " + name + ": reading its recorded datasets at once failed (" + e.getMessage() + ")");
                        }
                    }
                });
        List<NfsExportRecord> applied = new ArrayList<>();
        for (NfsExportRecord recorded : records) {
            try {
                NfsExportRecord record = withCurrentPath(recorded, store, exporter, backends, current);
                List<String> drift = NfsExporter.drift(record, listing);
                if (!drift.isEmpty()) {
                    LOG.warning("volume " + record.volume() + ": NFS drift found at start-up: " + String.join("; ", drift));
                }
                exporter.apply(record, listing);
                applied.add(record);
            } catch (RuntimeException e) {
                failures.add(recorded.volume() + ": " + e.getMessage());
                LOG.severe("could not re-apply the NFS export of volume " + recorded.volume() + ": " + e.getMessage());
            }
        }
        removeOrphans(store.list(NfsExportRecord.class), store.damagedVolumes(), exporter, backends, filesystemBackends, listing, failures);
        // last, once every client has its recorded exports back: whether one has any left decides its expiry
        for (NfsExportRecord record : applied) {
            try {
                releasePending(record, store, exporter);
            } catch (RuntimeException e) {
                failures.add(record.volume() + ": releasing a fenced client's NFSv4 state: " + e.getMessage());
                LOG.severe("volume " + record.volume() + ": releasing a fenced client's NFSv4 state failed: " + e.getMessage());
            }
        }
        return failures;
    }

    private static NfsExportRecord withCurrentPath(NfsExportRecord record, ExportStore store, NfsExporter exporter,
                                                   Map<String, VolumeBackend> backends, Map<String, Map<VolumeId, BackendVolume>> current) {
        Optional<BackendVolume> volume = ExportReapply.recordedVolume(record.backend(), record.volume(), backends, current);
        Path path = volume.filter(BackendVolume::isFilesystem).map(BackendVolume::mountPath).orElseThrow(() -> new IllegalStateException(
                "the dataset does not exist on backend " + record.backend() + "; the export stays recorded and is not applied"));
        if (path.equals(record.path())) {
            return record;
        }
        NfsExportRecord moved = record.withPath(path);
        store.write(moved);
        exporter.removeAll(record.path());
        LOG.warning("volume " + record.volume() + ": its dataset is mounted on " + path + " now, was " + record.path() + "; record updated");
        return moved;
    }

    /**
     * Releases the NFSv4 state of each client the record notes as fencing (an agent that died between
     * exportfs -u and the release) and drops the note of each released; one still pending stays noted.
     */
    private static void releasePending(NfsExportRecord record, ExportStore store, NfsExporter exporter) {
        NfsExportRecord now = record;
        for (NfsClient client : record.fencing().stream().sorted(java.util.Comparator.comparing(NfsClient::text)).toList()) {
            if (exporter.remove(record.path(), client, true) == StateRelease.DONE) {
                now = now.withoutFencing(client);
                LOG.info("volume " + record.volume() + ": released the NFSv4 state of fenced client " + client + " at start-up");
            } else {
                LOG.warning("volume " + record.volume() + ": the NFSv4 state of fenced client " + client
                        + " is still not released; tried again at its next deny or start-up");
            }
        }
        if (!now.equals(record)) {
            store.write(now);
        }
    }

    /** Removes the exports of our datasets that have no record; a damaged record's dataset keeps its exports. */
    private static void removeOrphans(List<NfsExportRecord> records, Set<VolumeId> damaged, NfsExporter exporter,
                                      Map<String, VolumeBackend> backends,
                                      Set<String> filesystemBackends, List<NfsExport> listing, List<String> failures) {
        Set<Path> recorded = records.stream().map(NfsExportRecord::path).collect(Collectors.toSet());
        Set<Path> ours = new HashSet<>();
        for (String name : filesystemBackends) {
            try {
                backends.get(name).list().stream().filter(BackendVolume::isFilesystem).filter(v -> !damaged.contains(v.id()))
                        .map(BackendVolume::mountPath).forEach(ours::add);
            } catch (RuntimeException e) {
                failures.add("backend " + name + ": its datasets cannot be listed for orphan exports: " + e.getMessage());
            }
        }
        for (NfsExport entry : listing) {
            if (ours.contains(entry.path()) && !recorded.contains(entry.path())) {
                try {
                    exporter.remove(entry.path(), entry.client());
                    LOG.warning("removed " + entry.client() + ":" + entry.path() + ": exported but with no durable record");
                } catch (RuntimeException e) {
                    failures.add(entry.client() + ":" + entry.path() + ": " + e.getMessage());
                }
            }
        }
    }
}
