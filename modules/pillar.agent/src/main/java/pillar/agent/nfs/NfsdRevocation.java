package pillar.agent.nfs;

import java.nio.file.Path;
import java.util.logging.Logger;

/**
 * Revokes the NFSv4 state every client holds on one filesystem: its path written to
 * {@code <proc>/fs/nfsd/unlock_filesystem}. From Linux 6.9 that revokes the opens, locks and delegations
 * on that filesystem only (a client's state elsewhere stays); before (6.1) it drops only NLM (NFSv3)
 * locks, which this agent's nfsd, without NFSv3, holds none of: nothing NFSv4 is revoked there.
 * docs/nfs.md fact 14.
 */
final class NfsdRevocation {
    private static final Logger LOG = Logger.getLogger(NfsdRevocation.class.getName());

    private NfsdRevocation() {
    }

    /**
     * Writes {@code path} to nfsd's {@code unlock_filesystem} through {@code writes}. True when the write returned
     * (done, or failed and logged: no such file is an nfsd that is not there); false when it did not in time.
     */
    static boolean revoke(Path procRoot, Path path, NfsdWrites writes) {
        boolean returned = writes.write(procRoot.resolve("fs/nfsd/unlock_filesystem"), path + "\n");
        if (returned) {
            LOG.info(() -> "revoked the NFSv4 state on " + path + " (unlock_filesystem; Linux 6.9 and later, on older kernels"
                    + " only NLM locks)");
        }
        return returned;
    }
}
