package pillar.node.attach;

import io.grpc.Status;
import pillar.node.mount.NfsExport;
import pillar.node.sys.Errno;
import pillar.node.sys.SyscallException;
import pillar.runtime.server.CsiException;

/**
 * What a refused mount over RPC-with-TLS says to the person who reads it, by the kernel's answer as measured in the
 * 6.12 VM: ESRCH (no handshake daemon answered: tlshd does not run), EACCES or EPERM (the handshake failed, the
 * server's certificate not trusted or not for its address, or the export refused the mount), EINVAL (a kernel
 * without the {@code xprtsec} option, before 6.5). FAILED_PRECONDITION: the node must be set up; any other errno
 * is left as it is.
 */
final class NfsTlsRefusal {
    private NfsTlsRefusal() {
    }

    static RuntimeException of(NfsExport export, SyscallException e) {
        Errno errno = e.errno();
        String why;
        if (errno.equals(Errno.ESRCH)) {
            why = "no TLS handshake daemon answered: run tlshd (ktls-utils) on this node";
        } else if (errno.equals(Errno.EACCES) || errno.equals(Errno.EPERM)) {
            why = "the TLS handshake or the server refused it: this node's tlshd must trust the CA of the storage node's"
                    + " certificate ([authenticate.client] x509.truststore), and that certificate must name " + export.server();
        } else if (errno.equals(Errno.EINVAL)) {
            why = "this kernel has no RPC-with-TLS client (the xprtsec option needs Linux 6.5 or later)";
        } else {
            return e;
        }
        return new CsiException(Status.Code.FAILED_PRECONDITION, "mounting " + export.describe() + ": " + e.getMessage() + "; " + why);
    }
}
