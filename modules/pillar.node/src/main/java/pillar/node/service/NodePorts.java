package pillar.node.service;

import java.time.Duration;

import pillar.api.value.NodeId;
import pillar.api.value.Nqn;
import pillar.node.fs.FilesystemTools;
import pillar.node.mount.Mounter;
import pillar.node.nvme.Initiator;
import pillar.node.nvme.SysfsNvme;
import pillar.node.stage.StageRecords;

/**
 * Everything the Node service works through: the ports (mounter, initiator, the tools' process
 * runner inside {@link FilesystemTools}), the sysfs reader, the stage records, and the node's
 * identity and settings. Tests build it from fakes; {@code NodeMain} from the real adapters.
 *
 * @param attachTimeout how long NodeStageVolume waits for the block device, and NodeExpandVolume for a new size
 */
public record NodePorts(NodeId nodeId, Nqn hostNqn, Mounter mounter, Initiator initiator, SysfsNvme sysfs,
                        FilesystemTools filesystems, StageRecords records, KubeletPaths paths, Duration attachTimeout) {
}
