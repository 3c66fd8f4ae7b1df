package pillar.node.service;

import java.time.Duration;
import java.util.function.Supplier;

import pillar.api.value.NodeId;
import pillar.api.value.Nqn;
import pillar.node.fs.FilesystemTools;
import pillar.node.mount.Mounter;
import pillar.node.nvme.Initiator;
import pillar.node.nvme.SysfsNvme;
import pillar.node.stage.StageRecords;
import pillar.runtime.keys.KernelKeyring;
import pillar.runtime.keys.Keyring;

/**
 * Everything the Node service works through: the ports (mounter, initiator, the tools' process
 * runner inside {@link FilesystemTools}), the sysfs reader, the stage records, and the node's
 * identity and settings. Tests build it from fakes; {@code NodeMain} from the real adapters.
 *
 * @param attachTimeout how long NodeStageVolume waits for the block device, and NodeExpandVolume for a new size
 * @param tlsKeys       the keyring of the TLS keys the node's connects name, asked for by a TLS target only
 */
public record NodePorts(NodeId nodeId, Nqn hostNqn, Mounter mounter, Initiator initiator, SysfsNvme sysfs,
                        FilesystemTools filesystems, StageRecords records, KubeletPaths paths, Duration attachTimeout,
                        Supplier<Keyring> tlsKeys) {
    /** The node's own keyring in the kernel, named so. */
    public static final String KEYRING = "pillar-csi-node";

    /** The kernel's keyring {@value #KEYRING}, made when first asked for. */
    public static Supplier<Keyring> kernelKeyring() {
        return () -> KernelKeyring.own(KEYRING);
    }
}
