package pillar.agent.nfs;

import java.nio.file.Path;
import java.util.List;
import java.util.logging.Logger;

/**
 * The rule of {@link NfsServer#releaseState} on the kernel: given the export table once {@code client} lost
 * its entry for {@code path}, expires its whole nfsd state ({@link NfsClientState}) when it has no entry
 * left, revokes the filesystem's ({@link NfsdRevocation}) when it has others and no other client has
 * {@code path}, and leaves the state when other clients still have {@code path} (a revocation would take
 * theirs). Its writes go through {@link NfsdWrites}, so it must run outside any lock other calls take.
 */
final class FencedState {
    private static final Logger LOG = Logger.getLogger(FencedState.class.getName());

    private FencedState() {
    }

    static StateRelease release(Path procRoot, NfsdWrites writes, Path path, NfsClient client, List<NfsExport> table) {
        if (table.stream().anyMatch(e -> e.path().equals(path) && e.client().equals(client))) {
            return StateRelease.DONE;
        }
        if (table.stream().noneMatch(e -> e.client().equals(client))) {
            return NfsClientState.expire(procRoot, client, writes) ? StateRelease.DONE : StateRelease.PENDING;
        }
        List<String> others = table.stream().filter(e -> e.path().equals(path)).map(e -> e.client().text()).sorted().toList();
        if (others.isEmpty()) {
            return NfsdRevocation.revoke(procRoot, path, writes) ? StateRelease.DONE : StateRelease.PENDING;
        }
        LOG.warning(() -> "the NFSv4 state of " + client + " on " + path + " is not revoked: it has other exports here and "
                + others + " still have " + path + " (a revocation would take theirs too); its opens and locks there stay"
                + " until it returns them or its last export goes (docs/nfs.md fact 14)");
        return StateRelease.DONE;
    }
}
