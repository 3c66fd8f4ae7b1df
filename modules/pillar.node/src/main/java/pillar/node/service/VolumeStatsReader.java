package pillar.node.service;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import pillar.api.csi.v1.NodeGetVolumeStatsResponse;
import pillar.api.csi.v1.VolumeCondition;
import pillar.api.csi.v1.VolumeUsage;
import pillar.api.value.VolumeId;
import pillar.node.mount.MountState;
import pillar.node.stage.Phase;
import pillar.node.stage.StageRecord;
import pillar.node.sys.FsStats;
import pillar.node.sys.StuckInKernelException;
import pillar.node.sys.SyscallException;
import pillar.runtime.server.CsiException;

/**
 * NodeGetVolumeStats: bytes and inodes from {@code statfs} (Filesystem) or the device's size
 * (Block), and a VolumeCondition that is abnormal when the mount is corrupted or missing or the NVMe
 * controller is not {@code live}. A broken volume still answers OK with an abnormal condition: the
 * condition is how the CO learns about it.
 */
final class VolumeStatsReader {
    private final NodePorts ports;
    private final NodeMeters meters;

    VolumeStatsReader(NodePorts ports, NodeMeters meters) {
        this.ports = ports;
        this.meters = meters;
    }

    NodeGetVolumeStatsResponse stats(Requests.Stats call) {
        Located at = locate(ports, call.volume(), call.volumePath());
        StageRecord r = at.record();
        Path path = at.path();
        NodeGetVolumeStatsResponse.Builder out = NodeGetVolumeStatsResponse.newBuilder();
        if (r.nfs().isPresent()) {
            try {
                return filesystemStats(out, path, Optional.empty()).build();
            } catch (StuckInKernelException e) {
                // a hard NFS mount whose server does not answer: the stat or statfs waits in the kernel
                return out.setVolumeCondition(VolumeCondition.newBuilder().setAbnormal(true).setMessage("the NFS server "
                        + r.nfs().get().server() + " of " + r.nfs().get().describe() + " does not answer: "
                        + e.getMessage())).build();
            }
        }
        Optional<String> problem = controllerProblem(r);
        if (r.block()) {
            Path device = ports.sysfs().devNode(r.device().orElseThrow());
            if (Files.exists(device)) {
                out.addUsage(VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.BYTES)
                        .setTotal(ports.sysfs().sizeBytes(device)));
            } else {
                problem = problem.or(() -> Optional.of("the block device " + device + " is gone"));
            }
        } else {
            return filesystemStats(out, path, problem).build();
        }
        return condition(out, problem).build();
    }

    /** Usage by statfs and the condition of the mount at {@code path}, given what is already known to be wrong. */
    private NodeGetVolumeStatsResponse.Builder filesystemStats(NodeGetVolumeStatsResponse.Builder out, Path path,
                                                               Optional<String> known) {
        Optional<String> problem = known;
        MountState state = ports.mounter().probe(path);
        if (state == MountState.CORRUPTED) {
            meters.corruptedMount();
            problem = Optional.of("the mount at " + path + " is corrupted (it answers EIO, ENOTCONN, "
                    + "ESTALE or EACCES)" + problem.map(p -> "; " + p).orElse(""));
        } else if (state == MountState.NOT_MOUNTED) {
            problem = Optional.of(path + " is not mounted" + problem.map(p -> "; " + p).orElse(""));
        } else {
            try {
                FsStats fs = ports.mounter().statfs(path);
                out.addUsage(VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.BYTES).setTotal(fs.totalBytes())
                        .setAvailable(fs.availableBytes()).setUsed(fs.usedBytes()));
                out.addUsage(VolumeUsage.newBuilder().setUnit(VolumeUsage.Unit.INODES).setTotal(fs.totalInodes())
                        .setAvailable(fs.freeInodes()).setUsed(fs.usedInodes()));
            } catch (SyscallException e) {
                Optional<String> before = problem;
                problem = Optional.of("statfs fails: " + e.getMessage() + before.map(p -> "; " + p).orElse(""));
            }
        }
        return condition(out, problem);
    }

    private static NodeGetVolumeStatsResponse.Builder condition(NodeGetVolumeStatsResponse.Builder out,
                                                                Optional<String> problem) {
        return out.setVolumeCondition(problem
                .map(p -> VolumeCondition.newBuilder().setAbnormal(true).setMessage(p))
                .orElse(VolumeCondition.newBuilder().setAbnormal(false).setMessage("volume is healthy")));
    }

    /** A volume's record and the path of the call, one of the record's own paths. */
    record Located(StageRecord record, Path path) {
    }

    /**
     * The record of a volume that is staged or published at {@code volumePath}; NOT_FOUND otherwise
     * (the spec's code for "volume does not exist on the volume path"), also for a path that breaks
     * the kubelet path rule: no volume is ever staged or published at one. Only a recorded path is
     * returned, so nothing reaches the filesystem through any other.
     */
    static Located locate(NodePorts ports, VolumeId volume, String volumePath) {
        StageRecord r = ports.records().read(volume).filter(s -> s.phase() == Phase.STAGED)
                .orElseThrow(() -> CsiException.notFound("volume " + volume + " is not staged on this node"));
        Path path;
        try {
            path = ports.paths().check("volume_path", volumePath);
        } catch (CsiException notAKubeletPath) {
            throw CsiException.notFound("volume " + volume + " is neither staged nor published at " + volumePath + " ("
                    + notAKubeletPath.getMessage() + ")");
        }
        if (!r.stagingPath().equals(path) && r.publicationAt(path).isEmpty()) {
            throw CsiException.notFound("volume " + volume + " is neither staged nor published at " + path);
        }
        return new Located(r, path);
    }

    /** What is wrong with the controller reaching the volume's target now (not the recorded name: after a reboot it may be another's). */
    private Optional<String> controllerProblem(StageRecord r) {
        var found = ports.sysfs().controllerFor(r.target(), r.target().hostOr(ports.hostNqn()), r.controller());
        if (found.isEmpty()) {
            return Optional.of("no NVMe controller reaches " + r.target().describe() + " (the recorded one, "
                    + r.controller().map(Object::toString).orElse("none") + ", is gone)");
        }
        String state = found.get().state();
        if (!state.equals("live")) {
            return Optional.of("NVMe controller " + found.get().controller() + " is " + state + ", not live");
        }
        return Optional.empty();
    }
}
