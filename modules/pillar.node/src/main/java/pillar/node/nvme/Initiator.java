package pillar.node.nvme;

import java.util.Optional;

/**
 * The host's NVMe-oF initiator: connect to a subsystem, disconnect, rescan. {@link FabricsInitiator}
 * is the real one (the kernel's {@code /dev/nvme-fabrics}, no nvme-cli). What the kernel then shows
 * (controllers, block devices) is read through {@link SysfsNvme}.
 *
 * <p>Errors: {@link InitiatorException}, whose message says what the kernel answered and what to
 * check (module loaded? target listening? host allowed?).
 */
public interface Initiator {
    /**
     * A controller to {@code target}: the live one this host already has for the same subsystem,
     * transport address and host NQN (reused, never duplicated), else a new connection. Idempotent.
     * Returns once the kernel has created the controller; its namespaces appear asynchronously.
     */
    default Controller connect(FabricsTarget target) {
        return connect(target, Optional.empty());
    }

    /**
     * {@link #connect(FabricsTarget)}, authenticating in-band with {@code auth} when the new connection
     * needs it (a live controller is reused: it authenticated already). A target that refuses the
     * secret fails the connect as the kernel does (EKEYREJECTED; ENOKEY when the host has none).
     */
    default Controller connect(FabricsTarget target, Optional<FabricsAuth> auth) {
        return connect(target, auth, Optional.empty());
    }

    /**
     * {@link #connect(FabricsTarget, Optional)}, over TLS with the key {@code tls} names when the new connection
     * needs it. A handshake that fails (no key of the identity at the target, another key) fails the connect.
     */
    Controller connect(FabricsTarget target, Optional<FabricsAuth> auth, Optional<FabricsTls> tls);

    /** Whether the kernel's NVMe/TCP host can connect over TLS (its fabrics options list {@code tls}: 6.7 on). */
    boolean tlsSupported();

    /** Deletes the controller. Idempotent: a controller that no longer exists is success. */
    void disconnect(Controller controller);

    /** Asks the controller to rescan its namespaces, e.g. after the target grew one. */
    void rescan(Controller controller);
}
