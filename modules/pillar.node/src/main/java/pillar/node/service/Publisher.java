package pillar.node.service;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.api.csi.v1.VolumeCapability.AccessMode.Mode;
import pillar.node.mount.MountOptions;
import pillar.node.mount.MountState;
import pillar.node.stage.Phase;
import pillar.node.stage.Publication;
import pillar.node.stage.StageRecord;
import pillar.runtime.server.CsiException;

/**
 * NodePublishVolume and NodeUnpublishVolume: bind mounts of the staging mount (Filesystem) or of the
 * device node onto a file (Block) at the pod's target path, read-only when asked or when the access
 * mode only reads. For Block, a read-only mount does not stop writes through the device node: a
 * read-only publication relies on kubelet giving the container the device with read permission
 * only, and a volume whose access mode only reads has its device set read-only when staged. The publication is recorded before it is mounted, so a crash in between leaves
 * a record a retry or an unpublish finishes from.
 *
 * <p>A second publish of a volume on this node follows the spec's table: same target and arguments
 * is OK; same target, other arguments is ALREADY_EXISTS; another target is FAILED_PRECONDITION
 * when either publication is SINGLE_NODE_SINGLE_WRITER (ReadWriteOncePod), OK otherwise
 * (ReadWriteOnce lets several pods of one node share the volume, which is what Kubernetes users
 * expect from SINGLE_NODE_WRITER and SINGLE_NODE_MULTI_WRITER alike).
 */
final class Publisher {
    private static final Logger LOG = Logger.getLogger(Publisher.class.getName());

    private final NodePorts ports;
    private final NodeMeters meters;

    Publisher(NodePorts ports, NodeMeters meters) {
        this.ports = ports;
        this.meters = meters;
    }

    void publish(Requests.Publish call) {
        StageRecord r = ports.records().read(call.volume())
                .filter(s -> s.phase() == Phase.STAGED)
                .orElseThrow(() -> CsiException.precondition("volume " + call.volume() + " is not staged on this node; "
                        + "NodeStageVolume comes first"));
        if (!r.stagingPath().equals(call.stagingPath())) {
            throw CsiException.precondition("volume " + call.volume() + " is staged at " + r.stagingPath() + ", not at "
                    + call.stagingPath());
        }
        if (r.nfs().isPresent() != call.capability().nfs()) {
            throw CsiException.precondition("volume " + call.volume() + " is staged as "
                    + (r.nfs().isPresent() ? "an NFS volume" : "an NVMe-oF volume") + ", the request's publish_context "
                    + (call.capability().nfs() ? "says nfs" : "names no NFS export"));
        }
        if (!r.fsType().equals(call.capability().fsType())) {
            throw CsiException.precondition("volume " + call.volume() + " is staged as "
                    + r.fsType().map(Object::toString).orElse("block") + ", the request asks for "
                    + call.capability().fsType().map(Object::toString).orElse("block"));
        }
        ports.paths().checkNoEscape("target_path", call.targetPath());
        Publication wanted = new Publication(call.targetPath(), call.effectiveReadOnly(), call.capability().accessMode(),
                call.capability().flags());
        Optional<Publication> same = r.publicationAt(call.targetPath());
        MountState targetState = ports.mounter().probe(call.targetPath());
        if (same.isPresent() && targetState == MountState.MOUNTED) {
            if (same.get().equals(wanted)) {
                return; // published already: idempotent
            }
            throw CsiException.alreadyExists("volume " + call.volume() + " is published at " + call.targetPath()
                    + " with other arguments (" + describe(same.get()) + ", asked " + describe(wanted) + ")");
        }
        List<Publication> others = r.publications().stream()
                .filter(p -> !p.target().equals(call.targetPath()))
                .filter(p -> ports.mounter().probe(p.target()).isMounted())
                .toList();
        if (!others.isEmpty() && (wanted.accessMode() == Mode.SINGLE_NODE_SINGLE_WRITER
                || others.stream().anyMatch(p -> p.accessMode() == Mode.SINGLE_NODE_SINGLE_WRITER))) {
            throw CsiException.precondition("volume " + call.volume() + " is published at " + others.get(0).target()
                    + " and SINGLE_NODE_SINGLE_WRITER allows one publication only");
        }
        Path source = sourceOf(r);
        if (targetState == MountState.CORRUPTED) {
            meters.corruptedMount();
        }
        if (targetState.isMounted()) {
            // a mount from an attempt whose record write did not happen, or a broken one: start clean
            LOG.info(() -> "unmounting what is at " + call.targetPath() + " before publishing " + call.volume());
            ports.mounter().unmount(call.targetPath());
        }
        ports.records().write(r.withPublication(wanted));
        createTarget(call.targetPath(), r.block());
        MountOptions options = r.block() ? MountOptions.NONE : call.capability().mountOptions();
        ports.mounter().bind(source, call.targetPath(), wanted.readOnly() ? options.withReadOnly() : options);
    }

    void unpublish(Requests.Unpublish call) {
        if (ports.paths().checkNoEscapeIfPresent("target_path", call.targetPath())) {
            ports.mounter().unmount(call.targetPath());
            removeTarget(call.targetPath());
        }
        ports.records().read(call.volume()).ifPresent(r -> {
            if (r.publicationAt(call.targetPath()).isPresent()) {
                ports.records().write(r.withoutPublication(call.targetPath()));
            }
        });
    }

    /** What a publication binds: the staging mount, or the head block device's node. */
    private Path sourceOf(StageRecord r) {
        if (!r.block()) {
            if (ports.mounter().probe(r.stagingPath()) != MountState.MOUNTED) {
                throw CsiException.precondition("the staging mount " + r.stagingPath() + " of " + r.volume()
                        + " is missing or broken; NodeStageVolume must run again");
            }
            if (r.nfs().isPresent() && ports.mounter().find(r.stagingPath()).filter(r.nfs().get()::matches).isEmpty()) {
                throw CsiException.precondition("the staging mount " + r.stagingPath() + " of " + r.volume()
                        + " is not " + r.nfs().get().describe() + "; NodeStageVolume must run again");
            }
            return r.stagingPath();
        }
        Path device = ports.sysfs().devNode(r.device().orElseThrow());
        if (!Files.exists(device)) {
            throw CsiException.precondition("the block device " + device + " of " + r.volume()
                    + " is gone; NodeStageVolume must run again");
        }
        return device;
    }

    private void createTarget(Path target, boolean block) {
        try {
            if (block) {
                if (!Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createFile(target);
                }
            } else if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectory(target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the target " + target + " (its parent must exist)", e);
        }
    }

    private void removeTarget(Path target) {
        if (ports.mounter().probe(target).isMounted()) {
            throw CsiException.precondition(target + " is still mounted after unmounting it");
        }
        try {
            Files.deleteIfExists(target);
        } catch (DirectoryNotEmptyException e) {
            // never delete recursively what might be a pod's data that landed under the mount point
            throw CsiException.precondition(target + " is not empty after unmounting; leaving it for an operator to inspect");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the target " + target, e);
        }
    }

    private static String describe(Publication p) {
        return (p.readOnly() ? "read-only" : "read-write") + " " + p.accessMode()
                + (p.mountFlags().isEmpty() ? "" : " " + p.mountFlags());
    }
}
