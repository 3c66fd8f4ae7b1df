package pillar.agent.nfs;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import pillar.api.value.InvalidValueException;

/**
 * The kernel NFS server's export table, one client per entry (docs/nfs.md). Every call is idempotent
 * and retryable; bad input is {@link InvalidValueException} and changes nothing; a failure is
 * {@link NfsServerException}.
 *
 * <p>Options are fixed but for the client's access ({@code rw} or {@code ro}), the squash ({@link NfsSquash}) and the
 * transport ({@link NfsTransport}): {@code <access>,sync,no_subtree_check,<squash>,fsid=<fsid>[,xprtsec=tls:mtls]},
 * never {@code crossmnt} (fact 4). Unexporting a client cuts its existing access at once (fact 2); exports
 * wiped and made again keep the data and the clients' mounts (fact 3).
 */
public interface NfsServer {
    /** Absolute, normalized, and only characters exportfs takes as they are (no blank, comma, quote or escape). */
    Pattern PATH = Pattern.compile("(/[A-Za-z0-9_.:+-]{1,255}){1,32}");

    /**
     * Exports {@code path} to {@code client} with {@code fsid}, {@code access}, {@code squash} and {@code transport}
     * ({@link NfsTransport#OTHER} is IllegalArgumentException); already so: no change, with other options: updated, and
     * a mount the client has takes them at its next request. {@link NfsTransport#TLS} where {@link #tlsProblem} names
     * one is {@link NfsTlsUnsupportedException}, nothing changed.
     */
    void export(Path path, NfsClient client, NfsFsid fsid, NfsAccess access, NfsSquash squash, NfsTransport transport);

    /** {@link #export(Path, NfsClient, NfsFsid, NfsAccess, NfsSquash, NfsTransport)} admitting any transport. */
    default void export(Path path, NfsClient client, NfsFsid fsid, NfsAccess access, NfsSquash squash) {
        export(path, client, fsid, access, squash, NfsTransport.ANY);
    }

    /** {@link #export(Path, NfsClient, NfsFsid, NfsAccess, NfsSquash)} without root squashing. */
    default void export(Path path, NfsClient client, NfsFsid fsid, NfsAccess access) {
        export(path, client, fsid, access, NfsSquash.NO_ROOT_SQUASH);
    }

    /** {@link #export(Path, NfsClient, NfsFsid, NfsAccess)} read-write. */
    default void export(Path path, NfsClient client, NfsFsid fsid) {
        export(path, client, fsid, NfsAccess.READ_WRITE);
    }

    /**
     * Removes {@code client}'s entry for {@code path}; none: success, {@link StateRelease#DONE}. Other clients and
     * paths keep theirs. An entry removed, the client's NFSv4 state is released as {@link #releaseState} does,
     * and how that went is returned.
     */
    StateRelease unexport(Path path, NfsClient client);

    /**
     * Releases the NFSv4 state {@code client} may still hold after losing its entry for {@code path}, whether
     * that entry went now or before (a retry): still listed, nothing; no entry of the client left on this server,
     * its whole state expired; otherwise, when no other client has {@code path}, its state on that filesystem
     * revoked (every client's there: none but it may use it), and when others still have it, nothing (theirs
     * would go too). {@link StateRelease#PENDING} when the kernel did not finish within its deadline: retry.
     */
    StateRelease releaseState(Path path, NfsClient client);

    /** Every entry of the table now, as the server serves it. */
    List<NfsExport> exports();

    /**
     * Every path the table exports now, to any client: also the entries {@link #exports} leaves out (a subnet, a
     * wildcard, a host name: exports other tools made, {@code sharenfs} among them). Each path once.
     */
    default List<Path> exportedPaths() {
        return exports().stream().map(NfsExport::path).distinct().toList();
    }

    /** Why this server cannot serve NFS now (nfsd or mountd missing), for a person; empty when it serves. */
    default java.util.Optional<String> problem() {
        return java.util.Optional.empty();
    }

    /**
     * Why this server cannot require RPC-with-TLS on an export, for a person; empty when it can (nfsd honours
     * {@code xprtsec} and the NFS tools write it). Whether {@code tlshd} holds a certificate is not known here.
     */
    default java.util.Optional<String> tlsProblem() {
        return java.util.Optional.of("this NFS server cannot require RPC-with-TLS");
    }

    /** The server of a host that has none (or an agent built without one): every call fails with {@code reason}. */
    static NfsServer absent(String reason) {
        return new NfsServer() {
            @Override
            public void export(Path path, NfsClient client, NfsFsid fsid, NfsAccess access, NfsSquash squash,
                               NfsTransport transport) {
                throw new NfsServerException(reason);
            }

            @Override
            public StateRelease unexport(Path path, NfsClient client) {
                throw new NfsServerException(reason);
            }

            @Override
            public StateRelease releaseState(Path path, NfsClient client) {
                throw new NfsServerException(reason);
            }

            @Override
            public List<NfsExport> exports() {
                throw new NfsServerException(reason);
            }

            /** None: no server here exports anything. */
            @Override
            public List<Path> exportedPaths() {
                return List.of();
            }

            @Override
            public java.util.Optional<String> problem() {
                return java.util.Optional.of(reason);
            }
        };
    }

    /** {@code path} when it may be exported; INVALID_ARGUMENT (field {@code export_path}) otherwise. */
    static Path requireExportable(Path path) {
        String text = path == null ? "" : path.toString();
        if (!PATH.matcher(text).matches() || !path.normalize().equals(path) || text.contains("/../") || text.contains("/./")
                || text.endsWith("/..") || text.endsWith("/.")) {
            throw new InvalidValueException("export_path", "must be an absolute normalized path of letters, digits and _.:+-, is '"
                    + text.replaceAll("[^\\x20-\\x7e]", "?") + "'");
        }
        return path;
    }
}
