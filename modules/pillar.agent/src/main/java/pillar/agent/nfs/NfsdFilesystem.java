package pillar.agent.nfs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.logging.Logger;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * nfsd's filesystem at {@code <proc>/fs/nfsd} in this process's own mount namespace. A container's
 * {@code /proc} is a procfs of its own, on which the host's mount of nfsd's filesystem (or another
 * container's) does not appear; {@link NfsPresence} reads {@code versions} there, and exportfs reads
 * {@code export_features} (without it exportfs assumes an old kernel's export flags).
 *
 * <p>{@link #mountIfMissing} runs one {@code mount -t nfsd nfsd <proc>/fs/nfsd} under its deadline when
 * the directory exists (nfsd is loaded) and its {@code versions} does not (not mounted here); nothing
 * when it is mounted (a host's systemd mounts it: proc-fs-nfsd.mount) or nfsd is not loaded (no
 * directory; {@link NfsPresence} says so). A failed mount is logged, never thrown: the block backends
 * serve on and the dataset backends report {@link NfsPresence#REASON}.
 */
public final class NfsdFilesystem {
    private static final Logger LOG = Logger.getLogger(NfsdFilesystem.class.getName());

    private NfsdFilesystem() {
    }

    /** Mounts nfsd's filesystem when it is loaded but not mounted here; true when this call mounted it. */
    public static boolean mountIfMissing(ProcessRunner runner, Duration timeout, Path procRoot) {
        Path dir = procRoot.resolve("fs/nfsd");
        if (!Files.isDirectory(dir) || Files.exists(dir.resolve("versions"))) {
            return false;
        }
        Command mount = new Command(List.of("mount", "-t", "nfsd", "nfsd", dir.toString()), timeout);
        try {
            runner.run(mount);
        } catch (CommandFailedException e) {
            LOG.warning(() -> mount + " failed: " + e.getMessage());
            return false;
        }
        LOG.info(() -> "mounted nfsd's filesystem at " + dir + " (not mounted in this mount namespace)");
        return true;
    }
}
