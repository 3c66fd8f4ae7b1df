package pillar.node.service;

import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.node.attach.Attacher;
import pillar.node.attach.Attachment;
import pillar.node.attach.NfsMount;
import pillar.node.mount.MountOptions;
import pillar.node.mount.NfsExport;
import pillar.node.stage.Phase;
import pillar.node.stage.StageRecord;
import pillar.runtime.server.CsiException;

/**
 * NodeStageVolume of an NFS volume: one NFSv4.2 mount of the export at the staging path (no NVMe
 * connect, no mkfs), made and checked by its {@link Attacher}. Converges like {@link Stager}: the record
 * is written before the mount and marked staged after it, a mount an earlier attempt left is kept if it
 * is this export, and a repeat of a stage that holds changes nothing. Unstage is {@link Stager#unstage}'s
 * (unmount, delete).
 */
final class NfsStager {
    private static final Logger LOG = Logger.getLogger(NfsStager.class.getName());

    private final NodePorts ports;
    private final Attacher<NfsMount, Attachment.Mount> nfs;
    private final NodeMeters meters;

    NfsStager(NodePorts ports, Attacher<NfsMount, Attachment.Mount> nfs, NodeMeters meters) {
        this.ports = ports;
        this.nfs = nfs;
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
            if (r.phase() == Phase.STAGED && nfs.attached(mountOf(call)).isPresent()) {
                return; // a repeat of a stage that holds
            }
            NfsMount unfinished = new NfsMount(r.nfs().get(), call.stagingPath(), MountOptions.NONE);
            if (!sameExport && nfs.attached(unfinished).isPresent()) {
                LOG.info(() -> "an unfinished stage of " + call.volume() + " mounted " + r.nfs().get().describe()
                        + "; unmounting it before mounting " + export.describe());
                nfs.detach(unfinished);
            }
            if (sameExport) {
                publications = r.publications();
            }
        }
        Stager.prepareStagingDirectory(ports, meters, call.stagingPath());
        StageRecord record = StageRecord.mountingNfs(call.volume(), call.stagingPath(), call.capability().flags(),
                call.capability().accessMode(), export);
        for (var p : publications) {
            record = record.withPublication(p);
        }
        ports.records().write(record);
        nfs.attach(mountOf(call));
        ports.records().write(record.stagedNfs());
    }

    /** The export at the staging path, read-only when every use of the volume only reads. */
    private static NfsMount mountOf(Requests.StageNfs call) {
        MountOptions options = call.capability().mountOptions();
        return new NfsMount(call.export(), call.stagingPath(), call.capability().readerOnly() ? options.withReadOnly() : options);
    }
}
