package pillar.agent.nfs;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;

import pillar.runtime.exec.Command;
import pillar.runtime.exec.CommandFailedException;
import pillar.runtime.exec.ProcessRunner;

/**
 * The kernel's nfsd through {@code exportfs}, each call an argument list with its deadline:
 * <ul>
 *   <li>{@code exportfs -i -o rw,sync,no_subtree_check,no_root_squash,fsid=<uuid> <client>:<path>}, {@code ro}
 *       for a read-only client, {@code root_squash} for a squashed export ({@code -i}: /etc/exports is not merged in;
 *       an IPv6 client as {@code [address]:path});
 *       an entry of the client and path is rewritten with the new options, and exportfs flushes nfsd's export cache,
 *       so a mount the client has takes the new access at its next request (docs/nfs.md);</li>
 *   <li>{@code exportfs -u <client>:<path>};</li>
 *   <li>{@code exportfs -v} for the listing: the table exportfs itself holds (it reads /var/lib/nfs/etab),
 *       in the format captured in the VM, through the same runner and deadline as the changes, where
 *       reading etab directly would be a second format and path to keep in step.</li>
 * </ul>
 * docs/nfs.md fact 7 (exit 1 without /etc/exports, though the export is made; nfs-utils 2.8 also without
 * /var/lib/nfs/etab): an empty /etc/exports and etab are created before the first command when missing, and every
 * status other than 0 is a failure.
 *
 * <p>An entry that requires RPC-with-TLS gets {@code xprtsec=tls:mtls} ({@link NfsTransport}); where {@link NfsTlsSupport}
 * finds the kernel or the tools unable, such an export is {@link NfsTlsUnsupportedException} before any command runs.
 *
 * <p>{@code exportfs -u} matches paths by prefix (nfs-utils' unexportfs_parsed compares the first
 * strlen(path) characters): removing {@code /t/pvc-1} also removes that client's {@code /t/pvc-10}. Such
 * entries, listed before and gone after, are exported again at once with the fsid and access they had.
 *
 * <p>A client's entry removed, its NFSv4 state is released ({@link FencedState}): a fenced client cannot
 * return its opens, locks and delegations, which would otherwise keep the dataset busy and its locks
 * held. Its last export gone, its whole state is expired ({@link NfsClientState}); with other exports,
 * the filesystem's state is revoked ({@link NfsdRevocation}) when no other client has the path. Those
 * writes run outside this server's lock, each bounded by {@link NfsdWrites}: a stuck one returns
 * {@link StateRelease#PENDING} and never holds up another volume's export or unexport.
 */
public final class KernelNfsServer implements NfsServer {
    /** The options between the access ({@code rw} or {@code ro}) and the squash. */
    static final String OPTIONS = "sync,no_subtree_check";
    private static final Logger LOG = Logger.getLogger(KernelNfsServer.class.getName());

    private final ProcessRunner runner;
    private final Duration timeout;
    private final Path etcExports;
    private final Path etab;
    private final Path procRoot;
    private final NfsdWrites writes;
    private Optional<String> tlsProblem;

    /** With its own {@link NfsdWrites} of the default deadline. */
    public KernelNfsServer(ProcessRunner runner, Duration timeout, Path etcExports, Path etab, Path procRoot) {
        this(runner, timeout, etcExports, etab, procRoot, new NfsdWrites(NfsdWrites.DEADLINE, NfsdWrites.IN_FLIGHT));
    }

    /**
     * @param etcExports {@code /etc/exports}, made empty when missing
     * @param etab       {@code /var/lib/nfs/etab}, exportfs's table, made empty when missing
     * @param procRoot   {@code /proc}, where {@link NfsPresence} finds nfsd and mountd and nfsd lists its clients
     * @param writes     the bounded writes to nfsd's procfs files (expiries and revocations)
     */
    public KernelNfsServer(ProcessRunner runner, Duration timeout, Path etcExports, Path etab, Path procRoot, NfsdWrites writes) {
        this.runner = runner;
        this.timeout = timeout;
        this.etcExports = etcExports;
        this.etab = etab;
        this.procRoot = procRoot;
        this.writes = writes;
    }

    @Override
    public Optional<String> problem() {
        return NfsPresence.problem(procRoot);
    }

    /**
     * Asked once ({@link NfsTlsSupport}): neither the kernel nor the tools change under a running agent; an answer that
     * could not tell is asked again at the next call.
     */
    @Override
    public synchronized Optional<String> tlsProblem() {
        if (tlsProblem != null) {
            return tlsProblem;
        }
        ensureTables();
        NfsTlsSupport.Verdict verdict = NfsTlsSupport.ask(procRoot, runner, timeout);
        if (verdict.settled()) {
            tlsProblem = verdict.problem();
        }
        return verdict.problem();
    }

    @Override
    public synchronized void export(Path path, NfsClient client, NfsFsid fsid, NfsAccess access, NfsSquash squash,
                                    NfsTransport transport) {
        NfsServer.requireExportable(path);
        if (transport == NfsTransport.TLS) {
            tlsProblem().ifPresent(problem -> {
                throw new NfsTlsUnsupportedException("cannot require RPC-with-TLS on " + path + ": " + problem);
            });
        }
        exportfs(List.of("exportfs", "-i", "-o", options(access, squash, fsid.text(), transport), target(client, path)));
    }

    private static String options(NfsAccess access, NfsSquash squash, String fsid, NfsTransport transport) {
        String xprtsec = transport.option();
        return access.option() + "," + OPTIONS + "," + squash.option() + ",fsid=" + fsid + (xprtsec.isEmpty() ? "" : "," + xprtsec);
    }

    @Override
    public StateRelease unexport(Path path, NfsClient client) {
        NfsServer.requireExportable(path);
        List<NfsExport> left = removeEntry(path, client);
        // outside the lock: an expiry may wait on a stuck device
        return left == null ? StateRelease.DONE : FencedState.release(procRoot, writes, path, client, left);
    }

    @Override
    public StateRelease releaseState(Path path, NfsClient client) {
        NfsServer.requireExportable(path);
        return FencedState.release(procRoot, writes, path, client, exports());
    }

    /** Runs exportfs -u; returns the table without the entry, or null when it was not listed. */
    private synchronized List<NfsExport> removeEntry(Path path, NfsClient client) {
        List<NfsExport> before = exports();
        if (before.stream().noneMatch(e -> e.path().equals(path) && e.client().equals(client))) {
            return null;
        }
        exportfs(List.of("exportfs", "-u", target(client, path)));
        List<NfsExport> after = exports();
        for (NfsExport lost : before) {
            if (lost.client().equals(client) && !lost.path().equals(path) && lost.path().toString().startsWith(path.toString())
                    && !after.contains(lost) && !lost.fsid().isEmpty() && lost.transport() != NfsTransport.OTHER) {
                LOG.warning(() -> "exportfs -u " + client + ":" + path + " also removed " + lost.path() + "; exporting it again");
                exportfs(List.of("exportfs", "-i", "-o", options(lost.access(), lost.squash(), lost.fsid(), lost.transport()),
                        target(client, lost.path())));
            }
        }
        if (after.stream().anyMatch(e -> e.path().equals(path) && e.client().equals(client))) {
            throw new NfsServerException("exportfs -u " + target(client, path) + " succeeded but the export is still listed");
        }
        return before.stream().filter(e -> !(e.path().equals(path) && e.client().equals(client))).toList();
    }

    @Override
    public synchronized List<NfsExport> exports() {
        return ExportfsListing.parse(exportfs(List.of("exportfs", "-v")));
    }

    @Override
    public synchronized List<Path> exportedPaths() {
        return ExportfsListing.paths(exportfs(List.of("exportfs", "-v")));
    }

    private static String target(NfsClient client, Path path) {
        return (client.ipv6() ? "[" + client.text() + "]" : client.text()) + ":" + path;
    }

    private String exportfs(List<String> argv) {
        ensureTables();
        try {
            return runner.run(new Command(argv, timeout)).stdout();
        } catch (CommandFailedException e) {
            throw new NfsServerException(String.join(" ", argv) + " failed: " + e.getMessage(), e);
        }
    }

    /** /etc/exports and etab, made empty when missing: exportfs exits 1 without them (etab: nfs-utils 2.8). */
    private void ensureTables() {
        ensureFile(etcExports, "exportfs fails without one");
        ensureFile(etab, "exportfs of nfs-utils 2.8 fails without one");
    }

    private static void ensureFile(Path file, String why) {
        if (Files.exists(file)) {
            return;
        }
        try {
            Files.createDirectories(file.getParent());
            Files.createFile(file);
            LOG.info(() -> "created an empty " + file + " (" + why + ")");
        } catch (FileAlreadyExistsException raced) {
            // made meanwhile: as good
        } catch (IOException e) {
            throw new NfsServerException("cannot create " + file + ", which exportfs needs: " + e.getMessage(), e);
        }
    }
}
