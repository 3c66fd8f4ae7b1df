package pillar.node.nvme;

import java.util.Optional;

import pillar.node.sys.KernelWait;

/**
 * An {@link Initiator} whose every call is bounded by a {@link KernelWait}: a connect keyed by the
 * subsystem, a disconnect or rescan by the controller. A connect stuck in {@code /dev/nvme-fabrics}
 * fails its caller at the deadline, and later connects to that subsystem are refused until it
 * returns, while other subsystems go on. Same contract as the initiator it wraps otherwise.
 */
public final class DeadlineInitiator implements Initiator {
    private final Initiator kernel;
    private final KernelWait wait;

    public DeadlineInitiator(Initiator kernel, KernelWait wait) {
        this.kernel = kernel;
        this.wait = wait;
    }

    @Override
    public Controller connect(FabricsTarget target, Optional<FabricsAuth> auth, Optional<FabricsTls> tls) {
        return wait.call("subsystem " + target.nqn(), "the connect to " + target.describe(), () -> kernel.connect(target, auth, tls));
    }

    @Override
    public boolean tlsSupported() {
        return wait.call("/dev/nvme-fabrics", "reading the fabrics options", kernel::tlsSupported);
    }

    @Override
    public void disconnect(Controller controller) {
        wait.run("controller " + controller, "the disconnect of " + controller, () -> kernel.disconnect(controller));
    }

    @Override
    public void rescan(Controller controller) {
        wait.run("controller " + controller, "the rescan of " + controller, () -> kernel.rescan(controller));
    }
}
