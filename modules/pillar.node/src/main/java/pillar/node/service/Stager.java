package pillar.node.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.attach.Attacher;
import pillar.node.attach.Attachment;
import pillar.node.attach.NvmeTarget;
import pillar.node.attach.SubsystemLocks;
import pillar.node.fs.DeviceContent;
import pillar.node.fs.FsType;
import pillar.node.mount.MountEntry;
import pillar.node.mount.MountOptions;
import pillar.node.mount.MountState;
import pillar.node.nvme.Controller;
import pillar.node.stage.Phase;
import pillar.node.stage.StageRecord;
import pillar.runtime.server.CsiException;

/**
 * NodeStageVolume and NodeUnstageVolume of an NVMe-oF volume, attached through its {@link Attacher}
 * (unstage also of an NFS one: unmount, delete). Stage converges rather than assumes: each step checks the
 * host first (controller already there? device already formatted? already mounted?), so a retry
 * after a crash or a timeout at any point finishes the job without a second mkfs or a second mount.
 * The record is written before the first change to the host and again when staging is complete.
 *
 * <p>Serialization: the caller holds the volume ({@code VolumeLocks}); "connect or reuse" and
 * "disconnect unless shared" hold the subsystem ({@link SubsystemLocks}). Nothing here is host-wide:
 * the kernel already runs one connect at a time ({@code nvmf_dev_mutex} in fabrics.c, across the whole
 * connect) and deletes different controllers side by side, so a stage or unstage of one volume never
 * waits for another volume's in this code.
 */
final class Stager {
    private static final Logger LOG = Logger.getLogger(Stager.class.getName());

    private final NodePorts ports;
    private final SubsystemLocks subsystems;
    private final Attacher<NvmeTarget, Attachment.Device> nvme;
    private final NodeMeters meters;

    /** @param subsystems the locks {@code nvme} connects under */
    Stager(NodePorts ports, SubsystemLocks subsystems, Attacher<NvmeTarget, Attachment.Device> nvme, NodeMeters meters) {
        this.ports = ports;
        this.subsystems = subsystems;
        this.nvme = nvme;
        this.meters = meters;
    }

    void stage(Requests.Stage call) {
        ports.paths().checkNoEscapeIfPresent("staging_target_path", call.stagingPath());
        Optional<StageRecord> existing = ports.records().read(call.volume());
        if (existing.isPresent()) {
            StageRecord r = existing.get();
            if (!r.stagingPath().equals(call.stagingPath())) {
                throw CsiException.precondition("volume " + call.volume() + " is already staged at " + r.stagingPath()
                        + "; unstage it there first");
            }
            if (r.nfs().isPresent()) {
                throw CsiException.precondition("volume " + call.volume() + " has an NFS stage ("
                        + r.nfs().get().describe() + ") at " + r.stagingPath() + "; unstage it first");
            }
            boolean sameCapability = r.fsType().equals(call.capability().fsType())
                    && r.mountFlags().equals(call.capability().flags()) && r.accessMode() == call.capability().accessMode();
            if (r.phase() == Phase.STAGED && !sameCapability) {
                throw CsiException.alreadyExists("volume " + call.volume() + " is staged at " + r.stagingPath() + " as "
                        + describe(r) + ", incompatible with " + call.capability().describe());
            }
            if (r.phase() == Phase.STAGED && r.target().sameEndpoint(call.target()) && stillInPlace(r)) {
                // a repeat of a stage that holds (also as another host NQN: a publish context renewed while the
                // volume stays staged keeps the connection that works): nothing to do, nothing to write
                return;
            }
            if (!r.target().sameConnection(call.target())) {
                if (r.phase() == Phase.STAGED && !r.target().sameEndpoint(call.target())) {
                    throw CsiException.precondition("volume " + call.volume() + " is staged from " + r.target().describe()
                            + ", the request names " + call.target().describe() + "; unstage it first");
                }
                LOG.info(() -> "an unfinished stage of " + call.volume() + " used " + r.target().describe()
                        + "; releasing it before staging from " + call.target().describe());
                release(r);
            }
        }
        prepareStagingDirectory(ports, meters, call.stagingPath());
        StageRecord record = StageRecord.attaching(call.volume(), call.stagingPath(), call.capability().fsType(),
                call.capability().flags(), call.capability().accessMode(), call.target());
        if (existing.isPresent() && existing.get().target().sameConnection(call.target())) {
            // keep what an earlier attempt learned (controller, device), and the publications of a staged volume
            StageRecord old = existing.get();
            record = new StageRecord(record.volume(), Phase.ATTACHING, record.stagingPath(), record.fsType(),
                    record.mountFlags(), record.accessMode(), record.target(), old.controller(), old.device(),
                    old.publications());
        }
        // written before the connect, outside the subsystem's lock: an unstage that decides on the controller
        // later sees this record, one that decided earlier disconnects before the connect takes the lock
        StageRecord intent = record;
        ports.records().write(intent);
        Attachment.Device attached = nvme.attach(new NvmeTarget(call.target(), call.auth(), call.tls(), record.controller()),
                link -> ports.records().write(intent.withController(Controller.parse(link))));
        Path device = attached.node();
        if (call.capability().fsType().isPresent()) {
            mountFilesystem(call, device, call.capability().fsType().get());
        } else if (call.capability().readerOnly()) {
            // every use of this volume only reads; a read-only bind mount of a device node would not stop a write
            ports.filesystems().setReadOnly(device);
        }
        ports.records().write(record.staged(Controller.parse(attached.link()), device.getFileName().toString()));
    }

    void unstage(Requests.Unstage call) {
        boolean present = ports.paths().checkNoEscapeIfPresent("staging_target_path", call.stagingPath());
        Optional<StageRecord> existing = ports.records().read(call.volume());
        if (existing.isEmpty()) {
            // nothing recorded, so nothing of ours is connected; a mount left at the path is still undone
            if (present) {
                ports.mounter().unmount(call.stagingPath());
            }
            return;
        }
        StageRecord r = existing.get();
        if (!r.stagingPath().equals(call.stagingPath())) {
            LOG.info(() -> call.volume() + " is staged at " + r.stagingPath() + ", not at " + call.stagingPath()
                    + ": nothing to unstage there");
            return;
        }
        for (var publication : r.publications()) {
            if (ports.mounter().probe(publication.target()).isMounted()) {
                throw CsiException.precondition("volume " + call.volume() + " is still published at "
                        + publication.target() + "; NodeUnpublishVolume comes first");
            }
        }
        release(r);
    }

    /** Whether what a staged record says is still true on the host: controller, device, mount. */
    private boolean stillInPlace(StageRecord r) {
        Optional<Attachment.Device> attached = nvme.attached(recorded(r));
        if (attached.isEmpty() || !r.controller().map(Controller::name).equals(Optional.of(attached.get().link()))) {
            return false;
        }
        Path device = ports.sysfs().devNode(r.device().orElseThrow());
        if (!attached.get().node().equals(device)) {
            return false;
        }
        if (r.block()) {
            return true;
        }
        return ports.mounter().probe(r.stagingPath()) == MountState.MOUNTED
                && ports.mounter().find(r.stagingPath()).filter(e -> sameDevice(e.source(), device)).isPresent();
    }

    /**
     * Undoes a stage: unmount, disconnect unless another volume uses the controller, remove the record.
     * An NFS volume has only its mount to undo.
     */
    private void release(StageRecord r) {
        ports.mounter().unmount(r.stagingPath());
        if (r.nfs().isPresent()) {
            ports.records().delete(r.volume());
            return;
        }
        if (r.block() && readerOnly(r.accessMode()) && r.device().isPresent()) {
            Path device = ports.sysfs().devNode(r.device().get());
            if (Files.exists(device)) {
                ports.filesystems().setReadWrite(device); // the device outlives us if another volume keeps it
            }
        }
        subsystems.with(r.target().nqn(), () -> {
            var scan = ports.records().scan();
            boolean shared = scan.records().stream()
                    .anyMatch(other -> !other.volume().equals(r.volume()) && other.fabrics().isPresent()
                            && other.target().sameEndpoint(r.target()));
            if (shared) {
                LOG.info(() -> "keeping the controller of " + r.target().describe() + ": another staged volume uses it");
            } else if (!scan.unreadable().isEmpty()) {
                LOG.warning(() -> "keeping the controller of " + r.target().describe()
                        + ": unreadable stage records might use it: " + scan.unreadable());
            } else {
                nvme.detach(recorded(r));
            }
            ports.records().delete(r.volume());
            return null;
        });
    }

    /** The target of an NVMe-oF record, its controller remembered (no secrets: a live controller needs none). */
    private static NvmeTarget recorded(StageRecord r) {
        return new NvmeTarget(r.target(), Optional.empty(), r.controller());
    }

    private void mountFilesystem(Requests.Stage call, Path device, FsType fsType) {
        Path staging = call.stagingPath();
        if (ports.mounter().probe(staging) == MountState.MOUNTED) {
            MountEntry entry = ports.mounter().find(staging).orElseThrow();
            if (!sameDevice(entry.source(), device)) {
                throw CsiException.precondition("staging path " + staging + " already has " + entry.source()
                        + " mounted, not " + device);
            }
            return; // staged by an earlier attempt
        }
        DeviceContent content = ports.filesystems().probe(device);
        if (content.blank()) {
            if (call.capability().readerOnly()) {
                throw CsiException.precondition("volume " + call.volume() + " is blank and its access mode "
                        + call.capability().accessMode() + " only reads: it needs a filesystem (a clone or a snapshot)");
            }
            LOG.info(() -> "formatting blank " + device + " as " + fsType);
            ports.filesystems().format(device, fsType, call.mkfs());
        } else if (!content.type().equals(Optional.of(fsType.kernelName()))) {
            throw CsiException.precondition(device + " of volume " + call.volume() + " holds " + content.describe()
                    + ", the capability asks for " + fsType + "; pillar-csi never formats a device that is not blank");
        }
        MountOptions options = call.capability().mountOptions().forStaging(fsType);
        ports.mounter().mount(device, staging, fsType, call.capability().readerOnly() ? options.withReadOnly() : options);
        if (!content.blank() && !call.capability().readerOnly()) {
            // a volume restored or cloned into a larger size holds its source's smaller filesystem:
            // grow it to the device, as NodeExpandVolume would (a filesystem that fills it is left alone)
            ports.filesystems().grow(fsType, device, staging);
        }
    }

    /**
     * Unmounts a corrupted mount at the staging path (a stage mounts there again) and creates the
     * directory if it is missing; never through a path that leaves the kubelet's tree.
     */
    static void prepareStagingDirectory(NodePorts ports, NodeMeters meters, Path staging) {
        if (ports.mounter().probe(staging) == MountState.CORRUPTED) {
            LOG.warning(() -> "the staging mount " + staging + " is corrupted; unmounting it to stage again");
            meters.corruptedMount();
            ports.mounter().unmount(staging);
        }
        try {
            if (!Files.exists(staging)) {
                ports.paths().checkNoEscape("staging_target_path", staging);
                Files.createDirectories(staging);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the staging directory " + staging, e);
        }
        ports.paths().checkNoEscape("staging_target_path", staging);
    }

    static boolean sameDevice(String source, Path device) {
        if (source.equals(device.toString())) {
            return true;
        }
        try {
            return Path.of(source).toRealPath().equals(device.toRealPath());
        } catch (IOException | java.nio.file.InvalidPathException e) {
            return false;
        }
    }

    private static boolean readerOnly(Mode mode) {
        return mode == Mode.SINGLE_NODE_READER_ONLY || mode == Mode.MULTI_NODE_READER_ONLY;
    }

    private static String describe(StageRecord r) {
        return r.fsType().map(t -> t + (r.mountFlags().isEmpty() ? "" : " " + r.mountFlags())).orElse("block") + " "
                + r.accessMode();
    }
}
