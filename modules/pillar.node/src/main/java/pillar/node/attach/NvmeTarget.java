package pillar.node.attach;

import java.util.Optional;

import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsAuth;
import pillar.node.nvme.FabricsTarget;
import pillar.api.value.TlsPsk;

/**
 * What {@link NvmeAttacher} attaches: a volume's NVMe-oF subsystem.
 *
 * @param auth  the DH-HMAC-CHAP secrets a new connection authenticates with
 * @param tls   the publication's TLS pre-shared key, for a {@linkplain FabricsTarget#tls() TLS target}
 * @param known the controller a stage record remembers, tried first (only if it still reaches the target)
 */
public record NvmeTarget(FabricsTarget target, Optional<FabricsAuth> auth, Optional<TlsPsk> tls, Optional<Controller> known) {
    /** A target with neither secrets nor a remembered controller. */
    public NvmeTarget(FabricsTarget target) {
        this(target, Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** A target without a TLS key. */
    public NvmeTarget(FabricsTarget target, Optional<FabricsAuth> auth, Optional<Controller> known) {
        this(target, auth, Optional.empty(), known);
    }

    @Override
    public String toString() {
        return "NvmeTarget[" + target.describe() + ", known " + known + "]";
    }
}
