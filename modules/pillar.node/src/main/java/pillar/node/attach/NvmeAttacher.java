package pillar.node.attach;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

import io.grpc.Status;
import pillar.api.value.Nqn;
import pillar.node.nvme.Controller;
import pillar.node.nvme.FabricsTarget;
import pillar.node.nvme.FabricsTls;
import pillar.node.nvme.Initiator;
import pillar.node.nvme.SysfsNvme;
import pillar.api.value.TlsPsk;
import pillar.runtime.keys.Keyring;
import pillar.runtime.keys.KeyringException;
import pillar.runtime.server.CsiException;

/**
 * NVMe-oF/TCP through the kernel's initiator: attach connects (or reuses the live controller) under the
 * subsystem's lock ({@link SubsystemLocks}), waits for the head namespace and caps its transfer size;
 * the attachment is the head device. Attached means a live controller reaching the target for this host
 * and the subsystem's head. Detach deletes the controller reaching the target, if any.
 *
 * <p>Errors: the initiator's ({@code InitiatorException}: the kernel's answer and what to check);
 * DEADLINE_EXCEEDED when no device appears in time (the controller stays, for a retry to reuse).
 */
public final class NvmeAttacher implements Attacher<NvmeTarget, Attachment.Device> {
    private static final Logger LOG = Logger.getLogger(NvmeAttacher.class.getName());

    private final Initiator initiator;
    private final SysfsNvme sysfs;
    private final Nqn host;
    private final Duration attachTimeout;
    private final SubsystemLocks subsystems;
    private final Supplier<Keyring> tlsKeys;

    /**
     * @param host          the node's host NQN, for a target without one of its own
     * @param attachTimeout how long attach waits for the block device
     * @param subsystems    shared with whoever else decides on this node's controllers
     * @param tlsKeys       where the node keeps the TLS keys its connects name (its own keyring, apart from the
     *                      {@code .nvme} one a storage node's target uses on the same host), asked for by a TLS target only
     */
    public NvmeAttacher(Initiator initiator, SysfsNvme sysfs, Nqn host, Duration attachTimeout,
                        SubsystemLocks subsystems, Supplier<Keyring> tlsKeys) {
        this.initiator = initiator;
        this.sysfs = sysfs;
        this.host = host;
        this.attachTimeout = attachTimeout;
        this.subsystems = subsystems;
        this.tlsKeys = tlsKeys;
    }

    @Override
    public Protocol protocol() {
        return Protocol.NVME_TCP;
    }

    @Override
    public Attachment.Device attach(NvmeTarget context, Consumer<String> linked) {
        FabricsTarget target = context.target();
        Controller controller = subsystems.with(target.nqn(), () -> initiator.connect(target, context.auth(), tlsKey(context)));
        linked.accept(controller.name());
        Path device = awaitDevice(target, controller);
        List<String> lowered = sysfs.capTransferSize(device);
        if (!lowered.isEmpty()) {
            LOG.info(() -> "limited write commands to " + SysfsNvme.MAX_TRANSFER_KIB + " KiB on " + lowered
                    + " (the target accepts no larger ones)");
        }
        return new Attachment.Device(controller.name(), device);
    }

    @Override
    public Optional<Attachment.Device> attached(NvmeTarget context) {
        Optional<Controller> controller = controller(context);
        if (controller.isEmpty()) {
            return Optional.empty();
        }
        return sysfs.findHead(context.target().nqn()).map(device -> new Attachment.Device(controller.get().name(), device));
    }

    @Override
    public void detach(NvmeTarget context) {
        subsystems.with(context.target().nqn(), () -> {
            controller(context).ifPresent(initiator::disconnect);
            if (context.target().tls()) {
                TlsPsk.identities(context.target().hostOr(host), context.target().nqn()).forEach(keyring()::remove);
            }
            return null;
        });
    }

    /**
     * For a TLS target, the publication's key put into the node's keyring under its identity, named by serial:
     * FAILED_PRECONDITION when this node's kernel cannot connect over TLS or the request carries no key.
     */
    private Optional<FabricsTls> tlsKey(NvmeTarget context) {
        FabricsTarget target = context.target();
        if (!target.tls()) {
            return Optional.empty();
        }
        if (!initiator.tlsSupported()) {
            throw new CsiException(Status.Code.FAILED_PRECONDITION, target.describe() + " requires NVMe/TCP TLS and this"
                    + " node's kernel cannot connect over it (its NVMe/TCP host needs kernel 6.7 or newer with"
                    + " CONFIG_NVME_TCP_TLS, and tlshd running; Debian 12's 6.1 has none)");
        }
        TlsPsk psk = context.tls().orElseThrow(() -> new CsiException(Status.Code.FAILED_PRECONDITION, target.describe()
                + " requires NVMe/TCP TLS and the request carries no key: publish the volume again"));
        Keyring keyring = keyring();
        int key = keyring.put(psk.identity(target.hostOr(host), target.nqn()), psk.bytes());
        return Optional.of(new FabricsTls(keyring.serial(), key));
    }

    private Keyring keyring() {
        try {
            return tlsKeys.get();
        } catch (KeyringException e) {
            throw new CsiException(Status.Code.FAILED_PRECONDITION, "this node has no keyring for NVMe/TCP TLS keys: "
                    + e.getMessage());
        }
    }

    /** The live controller reaching the target; a remembered name only if it still does (after a reboot it may be another's). */
    private Optional<Controller> controller(NvmeTarget context) {
        FabricsTarget target = context.target();
        return sysfs.controllerFor(target, target.hostOr(host), context.known()).map(SysfsNvme.ControllerInfo::controller);
    }

    private Path awaitDevice(FabricsTarget target, Controller controller) {
        try {
            return sysfs.awaitHead(target.nqn(), attachTimeout).orElseThrow(() ->
                    new CsiException(Status.Code.DEADLINE_EXCEEDED, "no block device for " + target.nqn()
                            + " appeared within " + attachTimeout.toSeconds() + " s; controller " + controller
                            + " is " + sysfs.state(controller).orElse("gone")
                            + " (is the namespace enabled on the target?)"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CsiException(Status.Code.ABORTED, "interrupted while waiting for the block device");
        }
    }
}
