package pillar.node.service;

import java.nio.file.Path;
import java.time.Duration;
import java.util.logging.Logger;

import io.grpc.Status;
import pillar.node.mount.MountState;
import pillar.node.stage.StageRecord;
import pillar.runtime.server.CsiException;

/**
 * NodeExpandVolume: after ControllerExpandVolume grew the LV or zvol and the target revalidated its
 * size, the initiator usually notices by itself; if the kernel does not show the size asked for yet,
 * the controller is told to rescan, and the size is awaited. Then the filesystem is grown online
 * ({@code resize2fs} for ext4, {@code xfs_growfs} for xfs) at the staging mount. Block volumes only
 * report their size. Idempotent: a filesystem that fills its device already is left alone.
 */
final class Expander {
    private static final Logger LOG = Logger.getLogger(Expander.class.getName());
    private static final Duration POLL = Duration.ofMillis(100);

    private final NodePorts ports;

    Expander(NodePorts ports) {
        this.ports = ports;
    }

    long expand(Requests.Expand call) {
        StageRecord r = VolumeStatsReader.locate(ports, call.volume(), call.volumePath()).record();
        if (r.nfs().isPresent()) {
            return nfsCapacity(call, r);
        }
        call.capability().ifPresent(c -> {
            if (c.nfs() || !c.fsType().equals(r.fsType())) {
                throw CsiException.invalid("volume_capability does not match the staged volume ("
                        + r.fsType().map(Object::toString).orElse("block") + ")");
            }
        });
        Path device = ports.sysfs().devNode(r.device().orElseThrow());
        long size = ports.sysfs().sizeBytes(device);
        if (call.requiredBytes() == 0 || size < call.requiredBytes()) {
            // the controller that reaches the volume's target now: the recorded name may be another's after a reboot
            var controller = ports.sysfs().controllerFor(r.target(), r.target().hostOr(ports.hostNqn()), r.controller())
                    .orElseThrow(() -> CsiException.precondition("no NVMe controller reaches " + r.target().describe()
                            + " for volume " + call.volume() + "; NodeStageVolume must run again"));
            ports.initiator().rescan(controller.controller());
            size = awaitSize(device, call.requiredBytes());
        }
        if (r.fsType().isPresent()) {
            if (ports.mounter().probe(r.stagingPath()) != MountState.MOUNTED) {
                throw CsiException.precondition("the staging mount " + r.stagingPath() + " is missing or broken; "
                        + "NodeStageVolume must run again before the filesystem can grow");
            }
            try {
                ports.filesystems().grow(r.fsType().get(), device, r.stagingPath());
            } catch (pillar.runtime.exec.CommandFailedException e) {
                if (e.stderr().contains("Permission denied")) {
                    throw new CsiException(Status.Code.INTERNAL, e.getMessage() + " (online resize needs the capability "
                            + "CAP_SYS_RESOURCE for ext4: run pillar-node privileged)");
                }
                throw e;
            }
            long grown = size;
            LOG.info(() -> "grew the " + r.fsType().get() + " filesystem of " + call.volume() + " to " + grown + " bytes");
        }
        return size;
    }

    /**
     * An NFS volume has nothing to grow on the node: the server's refquota is its size, so the answer is
     * the capacity the mounted filesystem reports (a capability, if given, must not be Block).
     */
    private long nfsCapacity(Requests.Expand call, StageRecord r) {
        if (call.capability().filter(Capability::block).isPresent()) {
            throw CsiException.invalid("volume_capability does not match the staged volume (nfs4, not block)");
        }
        if (ports.mounter().probe(r.stagingPath()) != MountState.MOUNTED) {
            throw CsiException.precondition("the staging mount " + r.stagingPath() + " is missing or broken; "
                    + "NodeStageVolume must run again");
        }
        return ports.mounter().statfs(r.stagingPath()).totalBytes();
    }

    private long awaitSize(Path device, long required) {
        long deadline = System.nanoTime() + ports.attachTimeout().toNanos();
        while (true) {
            long size = ports.sysfs().sizeBytes(device);
            if (size >= required) {
                return size;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new CsiException(Status.Code.UNAVAILABLE, "the kernel shows " + device + " with " + size
                        + " bytes after a rescan, " + required + " were asked for; has ControllerExpandVolume finished?");
            }
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CsiException(Status.Code.ABORTED, "interrupted while waiting for the new size");
            }
        }
    }
}
