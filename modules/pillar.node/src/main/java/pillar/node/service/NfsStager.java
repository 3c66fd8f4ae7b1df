package pillar.node.service;

import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

import io.grpc.Status;
import pillar.node.mount.MountEntry;
import pillar.node.mount.MountOptions;
import pillar.node.mount.MountState;
import pillar.node.mount.NfsExport;
import pillar.node.stage.Phase;
import pillar.node.stage.StageRecord;
import pillar.runtime.server.CsiException;

/**
 * NodeStageVolume of an NFS volume: one NFSv4.2 mount of the export at the staging path (no NVMe
 * connect, no mkfs). Converges like {@link Stager}: the record is written before the mount and marked
 * staged after it, a mount an earlier attempt left is kept if it is this export, and a repeat of a
 * stage that holds changes nothing. A mount is not proof of access (docs/nfs.md fact 4): after
 * mounting, the mount table must show this export (type nfs4, source, addr and clientaddr), or the
 * mount is undone and the call fails INTERNAL. Unstage is {@link Stager#unstage}'s (unmount, delete).
 */
final class NfsStager {
    private static final Logger LOG = Logger.getLogger(NfsStager.class.getName());

    private final NodePorts ports;
    private final NodeMeters meters;

    NfsStager(NodePorts ports, NodeMeters meters) {
        this.ports = ports;
        this.meters = meters;
    }

    void stage(Requests.StageNfs call) {
        ports.paths().checkNoEscapeIfPresent("staging_target_path", call.stagingPath());
        NfsExport export = call.export();
        Optional<StageRecord> existing = ports.records().read(call.volume());
        List<pillar.node.stage.Publication> publications = List.of();
        if (existing.isPresent()) {
            StageRecord r = existing.get();
            if (!r.stagingPath().equals(call.stagingPath())) {
                throw CsiException.precondition("volume " + call.volume() + " is already staged at " + r.stagingPath()
                        + "; unstage it there first");
            }
            if (r.nfs().isEmpty()) {
                throw CsiException.precondition("volume " + call.volume() + " has an NVMe-oF stage at " + r.stagingPath()
                        + ", the request names " + export.describe() + "; unstage it first");
            }
            boolean sameExport = r.nfs().get().equals(export);
            boolean sameCapability = r.mountFlags().equals(call.capability().flags())
                    && r.accessMode() == call.capability().accessMode();
            if (r.phase() == Phase.STAGED && !sameExport) {
                throw CsiException.precondition("volume " + call.volume() + " is staged from " + r.nfs().get().describe()
                        + ", the request names " + export.describe() + "; unstage it first");
            }
            if (r.phase() == Phase.STAGED && !sameCapability) {
                throw CsiException.alreadyExists("volume " + call.volume() + " is staged at " + r.stagingPath()
                        + " as nfs4 " + r.mountFlags() + " " + r.accessMode() + ", incompatible with "
                        + call.capability().describe());
            }
            if (r.phase() == Phase.STAGED && mountedHere(call, export)) {
                return; // a repeat of a stage that holds
            }
            if (!sameExport && ports.mounter().find(call.stagingPath()).filter(r.nfs().get()::matches).isPresent()) {
                LOG.info(() -> "an unfinished stage of " + call.volume() + " mounted " + r.nfs().get().describe()
                        + "; unmounting it before mounting " + export.describe());
                ports.mounter().unmount(call.stagingPath());
            }
            if (sameExport) {
                publications = r.publications();
            }
        }
        if (ports.mounter().probe(call.stagingPath()) == MountState.CORRUPTED) {
            LOG.warning(() -> "the staging mount " + call.stagingPath() + " is corrupted; unmounting it to stage again");
            meters.corruptedMount();
            ports.mounter().unmount(call.stagingPath());
        }
        Stager.prepareStagingDirectory(ports, call.stagingPath());
        StageRecord record = StageRecord.mountingNfs(call.volume(), call.stagingPath(), call.capability().flags(),
                call.capability().accessMode(), export);
        for (var p : publications) {
            record = record.withPublication(p);
        }
        ports.records().write(record);
        mount(call, export);
        ports.records().write(record.stagedNfs());
    }

    private void mount(Requests.StageNfs call, NfsExport export) {
        Optional<MountEntry> present = ports.mounter().probe(call.stagingPath()) == MountState.MOUNTED
                ? ports.mounter().find(call.stagingPath()) : Optional.empty();
        if (present.isPresent()) {
            if (!export.matches(present.get())) {
                throw CsiException.precondition("staging path " + call.stagingPath() + " already has "
                        + present.get().fsType() + " " + present.get().source() + " mounted, not " + export.describe());
            }
            return; // mounted by an earlier attempt
        }
        MountOptions options = call.capability().mountOptions();
        ports.mounter().mountNfs(export, call.stagingPath(), call.capability().readerOnly() ? options.withReadOnly() : options);
        Optional<MountEntry> mounted = ports.mounter().find(call.stagingPath());
        if (mounted.filter(export::matches).isEmpty()) {
            ports.mounter().unmount(call.stagingPath());
            throw new CsiException(Status.Code.INTERNAL, "after mounting " + export.describe() + " at " + call.stagingPath()
                    + " the mount table shows " + mounted.map(e -> e.fsType() + " " + e.source() + " (" + e.superOptions()
                    + ")").orElse("nothing") + "; refusing a mount that is not the export");
        }
    }

    private boolean mountedHere(Requests.StageNfs call, NfsExport export) {
        return ports.mounter().probe(call.stagingPath()) == MountState.MOUNTED
                && ports.mounter().find(call.stagingPath()).filter(export::matches).isPresent();
    }
}
