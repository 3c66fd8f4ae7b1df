package pillar.node.attach;

import java.util.Optional;

import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsAuth;
import pillar.node.nvme.FabricsTarget;

/**
 * What {@link NvmeAttacher} attaches: a volume's NVMe-oF subsystem.
 *
 * @param auth  the DH-HMAC-CHAP secrets a new connection authenticates with
 * @param known the controller a stage record remembers, tried first (only if it still reaches the target)
 */
public record NvmeTarget(FabricsTarget target, Optional<FabricsAuth> auth, Optional<Controller> known) {
    /** A target with neither secrets nor a remembered controller. */
    public NvmeTarget(FabricsTarget target) {
        this(target, Optional.empty(), Optional.empty());
    }
}
