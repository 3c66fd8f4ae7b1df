package pillar.agent.nfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * A client's NFSv4 state in nfsd (its opens, locks and delegations), expired through
 * {@code <proc>/fs/nfsd/clients/<id>/ctl} ("expire", Linux 5.3 and later). A client removed from its
 * last export can no longer return that state (every call with a file handle is refused), and nfsd
 * keeps it as long as the client renews its lease, which it does while it has the mount: its files
 * stay open on the server (the dataset is busy, {@code zfs destroy} refuses it) and its locks stay
 * held against the nodes still allowed. Measured in the VM (NfsRwxKernelIT).
 */
final class NfsClientState {
    private static final Logger LOG = Logger.getLogger(NfsClientState.class.getName());

    private NfsClientState() {
    }

    /**
     * Expires every nfsd client whose address (the {@code address:} line of its {@code info}) is
     * {@code client}'s, each write through {@code writes} (bounded by its deadline). True when every such
     * write returned (a client that went meanwhile is skipped; no nfsd clients directory is no client; a
     * failed write is logged: the export is gone either way, and only the state lingers); false when one
     * did not return in time, so the expiry is to be tried again.
     */
    static boolean expire(Path procRoot, NfsClient client, NfsdWrites writes) {
        List<String> expired = new ArrayList<>();
        boolean returned = true;
        for (Path id : ids(procRoot, client)) {
            if (writes.write(id.resolve("ctl"), "expire\n")) {
                expired.add(id.getFileName().toString());
            } else {
                returned = false;
            }
        }
        if (!expired.isEmpty()) {
            LOG.info(() -> "expired the NFSv4 state of " + client + " (nfsd clients " + expired + "): it has no export left");
        }
        return returned;
    }

    /** The directories of the nfsd clients of {@code client}'s address, in order; none without an nfsd clients directory. */
    static List<Path> ids(Path procRoot, NfsClient client) {
        Path clients = procRoot.resolve("fs/nfsd/clients");
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(clients)) {
            return found;
        }
        List<Path> ids;
        try (Stream<Path> listing = Files.list(clients)) {
            ids = listing.sorted().toList();
        } catch (IOException e) {
            LOG.warning(() -> "cannot list " + clients + " to expire the NFSv4 state of " + client + ": " + e.getMessage());
            return found;
        }
        for (Path id : ids) {
            String address;
            try {
                address = address(Files.readString(id.resolve("info")));
            } catch (IOException gone) {
                continue;
            }
            if (address != null && sameHost(address, client)) {
                found.add(id);
            }
        }
        return found;
    }

    /** The {@code address:} value of an nfsd client's info, unquoted: {@code 10.77.1.2:876}, {@code [fd00::2]:876}. */
    private static String address(String info) {
        return info.lines().filter(l -> l.startsWith("address:")).map(l -> l.substring("address:".length()).strip())
                .map(v -> v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"") ? v.substring(1, v.length() - 1) : v)
                .findFirst().orElse(null);
    }

    /** Whether {@code host:port} (IPv6 in brackets) names {@code client}'s address. */
    private static boolean sameHost(String address, NfsClient client) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0) {
            return false;
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            return NfsClient.parse("address", host).equals(client);
        } catch (RuntimeException notAnAddress) {
            return false;
        }
    }
}
