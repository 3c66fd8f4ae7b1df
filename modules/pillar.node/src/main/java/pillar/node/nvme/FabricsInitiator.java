package pillar.node.nvme;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.api.value.Nqn;
import pillar.node.sys.Errno;
import pillar.node.sys.SyscallException;
import pillar.node.sys.Syscalls;

/**
 * {@link Initiator} on the kernel: writes the options string to {@code /dev/nvme-fabrics} and reads
 * back {@code instance=<n>,cntlid=<m>} on the same open file; deletes a controller by writing 1 to
 * its {@code delete_controller}; rescans through {@code rescan_controller}.
 */
public final class FabricsInitiator implements Initiator {
    private static final Logger LOG = Logger.getLogger(FabricsInitiator.class.getName());
    private static final Duration DELETE_WAIT = Duration.ofSeconds(30);

    private final Path fabricsDevice;
    private final SysfsNvme sysfs;
    private final Nqn host;

    public FabricsInitiator(Path fabricsDevice, SysfsNvme sysfs, Nqn host) {
        this.fabricsDevice = fabricsDevice;
        this.sysfs = sysfs;
        this.host = host;
    }

    @Override
    public Controller connect(FabricsTarget target, Optional<FabricsAuth> auth, Optional<FabricsTls> tls) {
        Nqn as = target.hostOr(host);
        Optional<SysfsNvme.ControllerInfo> existing = sysfs.controllerFor(target, as);
        if (existing.isPresent()) {
            LOG.fine(() -> "reusing " + existing.get().controller() + " (" + existing.get().state() + ") for "
                    + target.describe());
            return existing.get().controller();
        }
        String options = FabricsOptions.connect(target, as, auth, tls); // holds the secrets: never logged
        int fd;
        try {
            fd = Syscalls.openReadWrite(fabricsDevice);
        } catch (SyscallException e) {
            throw new InitiatorException("cannot open " + fabricsDevice + " (" + e.errno()
                    + "): is the nvme-tcp module loaded (modprobe nvme-tcp)?", e);
        }
        try {
            Syscalls.write(fd, fabricsDevice, options.getBytes(StandardCharsets.US_ASCII));
            Controller created = FabricsOptions.parseReply(
                    new String(Syscalls.read(fd, fabricsDevice, 256), StandardCharsets.US_ASCII));
            LOG.info(() -> "connected " + created + " to " + target.describe());
            return created;
        } catch (SyscallException e) {
            if (e.errno().equals(Errno.EALREADY)) {
                // the kernel has a controller with these parameters that our scan did not take (racing state)
                Optional<SysfsNvme.ControllerInfo> again = sysfs.controllerFor(target, as);
                if (again.isPresent()) {
                    return again.get().controller();
                }
            }
            throw new InitiatorException("connecting to " + target.describe() + " failed: " + e.errno() + " ("
                    + hint(e.errno()) + "; the kernel log says more)", e);
        } finally {
            Syscalls.close(fd);
        }
    }

    /** Reads the options the kernel's fabrics device takes (one line: {@code instance=-1,...,tls}). */
    @Override
    public boolean tlsSupported() {
        int fd;
        try {
            fd = Syscalls.openReadWrite(fabricsDevice);
        } catch (SyscallException e) {
            return false;
        }
        try {
            String options = new String(Syscalls.read(fd, fabricsDevice, 4096), StandardCharsets.US_ASCII).strip();
            return java.util.Arrays.asList(options.split(",")).contains("tls");
        } catch (SyscallException e) {
            return false;
        } finally {
            Syscalls.close(fd);
        }
    }

    @Override
    public void disconnect(Controller controller) {
        Path dir = sysfs.controllerDir(controller);
        try {
            Files.writeString(dir.resolve("delete_controller"), "1", StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            return; // already gone
        } catch (IOException e) {
            if (!Files.exists(dir)) {
                return;
            }
            throw new InitiatorException("cannot delete " + controller + ": " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + DELETE_WAIT.toNanos();
        while (Files.exists(dir)) {
            if (System.nanoTime() - deadline >= 0) {
                throw new InitiatorException(controller + " still exists " + DELETE_WAIT.toSeconds()
                        + " s after delete_controller");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InitiatorException("interrupted while " + controller + " was being deleted", e);
            }
        }
        LOG.info(() -> "disconnected " + controller);
    }

    @Override
    public void rescan(Controller controller) {
        try {
            Files.writeString(sysfs.controllerDir(controller).resolve("rescan_controller"), "1", StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new InitiatorException("cannot rescan " + controller + ": " + e.getMessage(), e);
        }
    }

    static String hint(Errno errno) {
        if (errno.equals(Errno.ECONNREFUSED)) {
            return "nothing listens at that address and port: is the volume exported?";
        }
        if (errno.equals(Errno.EKEYREJECTED)) {
            return "the target refused this host's DH-HMAC-CHAP secret (or this host refused the target's):"
                    + " are the node-stage Secret's keys the ones the controller last gave the agent?";
        }
        if (errno.equals(Errno.ENOKEY)) {
            return "the target requires DH-HMAC-CHAP and this host connected without a secret, or the TLS key this"
                    + " connect names is not in the keyring";
        }
        if (errno.equals(Errno.EIO)) {
            return "the target refused the connect (over TLS: the handshake failed, is tlshd running on this node and the"
                    + " storage node, and does the target hold this publication's key?); a 6.12 host logs 'Connect for subsystem ... is not allowed' when the"
                    + " target does not admit this host NQN (is the volume published to this node, as this host NQN?)";
        }
        if (errno.equals(Errno.EINVAL)) {
            return "the kernel refused the options or the target refused the connect: is this host allowed "
                    + "on the subsystem, and does the subsystem exist?";
        }
        if (errno.equals(Errno.ETIMEDOUT) || errno.equals(Errno.EHOSTUNREACH) || errno.equals(Errno.ENETUNREACH)) {
            return "the target cannot be reached over the network";
        }
        if (errno.equals(Errno.EADDRNOTAVAIL)) {
            return "no route or source address for the target";
        }
        return "see the kernel log";
    }
}
