package pillar.agent.nfs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A fake of nfsd's export table behaving as docs/nfs.md measured it: exports are per client; a client
 * without an entry cannot mount; once its entry goes its existing mount fails at its next call, ESTALE
 * while the path is still exported to others (fact 2) and EACCES while the path is exported to no one
 * (fact 3); the data stays with the path, so an entry made again with the same fsid lets an old mount
 * read and write again, while another fsid leaves it stale. A read-only entry's mount reads and its writes
 * fail (EROFS), an entry's access changed applies to a mount at its next call. The squash is kept and listed as
 * exportfs lists it (the fake has no uids: the kernel test shows what it does). An entry requiring RPC-with-TLS refuses
 * a plaintext mount (EPERM, as mount(2) answered in the 6.12 VM) and admits {@link #mountTls}; it is refused whole while {@link #setTlsProblem} names a
 * problem (the default: none). Only paths made with {@link #directory} exist.
 *
 * <p>A mount gives its client NFSv4 state on the path ({@link #holdsState}); an entry removed, that state is
 * released by {@link NfsServer#releaseState}'s rule, whole when the client has no entry left, the path's
 * (every client's) when no other client has it, none while others do. {@link #hangReleases} makes every
 * release that would change state answer {@link StateRelease#PENDING} and change nothing (a stuck expiry);
 * {@link #removeEntryOnly} is {@code exportfs -u} by hand (an agent that died before the release).
 */
public final class FakeNfsServer implements NfsServer {
    private record Key(Path path, NfsClient client) {
    }

    private record Entry(String fsid, NfsAccess access, NfsSquash squash, NfsTransport transport) {
    }

    private final Map<Key, Entry> table = new LinkedHashMap<>();
    private final Set<Path> directories = new HashSet<>();
    private final Map<Path, Map<String, String>> files = new HashMap<>();
    private final Map<NfsClient, Set<Path>> state = new HashMap<>();
    private boolean hang;
    private int changes;
    private java.util.Optional<String> problem = java.util.Optional.empty();
    private java.util.Optional<String> tlsProblem = java.util.Optional.empty();

    /** From now on exports cannot require RPC-with-TLS, for this reason (an old kernel or exportfs); null: they can. */
    public synchronized FakeNfsServer setTlsProblem(String reason) {
        tlsProblem = java.util.Optional.ofNullable(reason);
        return this;
    }

    @Override
    public synchronized java.util.Optional<String> tlsProblem() {
        return tlsProblem;
    }

    /** From now on the server reports this problem (nfsd or mountd gone); null: it serves again. */
    public synchronized FakeNfsServer setProblem(String reason) {
        problem = java.util.Optional.ofNullable(reason);
        return this;
    }

    @Override
    public synchronized java.util.Optional<String> problem() {
        return problem;
    }

    /** A directory that exists and may be exported (a mounted dataset). */
    public synchronized Path directory(Path path) {
        directories.add(path);
        files.putIfAbsent(path, new HashMap<>());
        return path;
    }

    @Override
    public synchronized void export(Path path, NfsClient client, NfsFsid fsid, NfsAccess access, NfsSquash squash,
                                    NfsTransport transport) {
        NfsServer.requireExportable(path);
        if (transport == NfsTransport.OTHER) {
            throw new IllegalArgumentException("an xprtsec this agent did not write is never exported");
        }
        if (transport == NfsTransport.TLS && tlsProblem.isPresent()) {
            throw new NfsTlsUnsupportedException("cannot require RPC-with-TLS on " + path + ": " + tlsProblem.get());
        }
        if (!directories.contains(path)) {
            throw new NfsServerException("exportfs: Failed to stat " + path + ": No such file or directory");
        }
        table.put(new Key(path, client), new Entry(fsid.text(), access, squash, transport));
        changes++;
    }

    @Override
    public synchronized StateRelease unexport(Path path, NfsClient client) {
        NfsServer.requireExportable(path);
        if (table.remove(new Key(path, client)) == null) {
            return StateRelease.DONE;
        }
        changes++;
        return releaseState(path, client);
    }

    @Override
    public synchronized StateRelease releaseState(Path path, NfsClient client) {
        NfsServer.requireExportable(path);
        if (table.containsKey(new Key(path, client))) {
            return StateRelease.DONE;
        }
        boolean anyLeft = table.keySet().stream().anyMatch(k -> k.client().equals(client));
        boolean othersOnPath = table.keySet().stream().anyMatch(k -> k.path().equals(path));
        if (anyLeft && othersOnPath) {
            return StateRelease.DONE;
        }
        if (hang) {
            return StateRelease.PENDING;
        }
        if (!anyLeft) {
            state.remove(client);
        } else {
            state.values().forEach(paths -> paths.remove(path));
        }
        return StateRelease.DONE;
    }

    /** Whether {@code client} holds NFSv4 state (opens, locks, delegations) on {@code path}: it mounted it and it was not released. */
    public synchronized boolean holdsState(NfsClient client, Path path) {
        return state.getOrDefault(client, Set.of()).contains(path);
    }

    /** From now on every release that would change state hangs past its deadline: {@link StateRelease#PENDING}, nothing changed. */
    public synchronized FakeNfsServer hangReleases(boolean hanging) {
        hang = hanging;
        return this;
    }

    /** {@code exportfs -u} alone: the entry goes, the client's state stays (an agent that died before releasing it). */
    public synchronized void removeEntryOnly(Path path, NfsClient client) {
        if (table.remove(new Key(path, client)) != null) {
            changes++;
        }
    }

    @Override
    public synchronized List<NfsExport> exports() {
        List<NfsExport> exports = new ArrayList<>();
        table.forEach((key, entry) -> exports.add(new NfsExport(key.path(), key.client(), entry.fsid(), entry.access(), entry.squash(),
                entry.transport())));
        return exports;
    }

    /** {@code exportfs -ua}: every entry gone, the data kept. */
    public synchronized void wipe() {
        table.clear();
        changes++;
    }

    /** How many times the table changed (an export of an existing entry counts: exportfs rewrites it). */
    public synchronized int changes() {
        return changes;
    }

    /** A node's plaintext mount of {@code path}: refused unless exported to {@code client} (EACCES) admitting any transport (EPERM). */
    public NfsServerContract.Mount mount(NfsClient client, Path path) {
        return mount(client, path, false);
    }

    /** A node's mount of {@code path} over RPC-with-TLS: refused (EACCES) unless exported to {@code client}. */
    public NfsServerContract.Mount mountTls(NfsClient client, Path path) {
        return mount(client, path, true);
    }

    private synchronized NfsServerContract.Mount mount(NfsClient client, Path path, boolean tls) {
        Entry mounted = table.get(new Key(path, client));
        if (mounted == null) {
            throw new NfsServerContract.AccessException("EACCES");
        }
        if (mounted.transport() == NfsTransport.TLS && !tls) {
            throw new NfsServerContract.AccessException("EPERM"); // mount(2)'s answer in the 6.12 VM
        }
        String fsid = mounted.fsid();
        state.computeIfAbsent(client, c -> new HashSet<>()).add(path);
        return new NfsServerContract.Mount() {
            @Override
            public void write(String name, String text) {
                synchronized (FakeNfsServer.this) {
                    Map<String, String> data = check();
                    if (table.get(new Key(path, client)).access() == NfsAccess.READ_ONLY) {
                        throw new NfsServerContract.AccessException("EROFS");
                    }
                    data.put(name, text);
                }
            }

            @Override
            public String read(String name) {
                String text = check().get(name);
                if (text == null) {
                    throw new NfsServerContract.AccessException("ENOENT");
                }
                return text;
            }

            private Map<String, String> check() {
                synchronized (FakeNfsServer.this) {
                    Entry now = table.get(new Key(path, client));
                    if (now == null) {
                        boolean exportedToOthers = table.keySet().stream().anyMatch(k -> k.path().equals(path));
                        throw new NfsServerContract.AccessException(exportedToOthers ? "ESTALE" : "EACCES");
                    }
                    if (!now.fsid().equals(fsid)) {
                        throw new NfsServerContract.AccessException("ESTALE");
                    }
                    if (now.transport() == NfsTransport.TLS && !tls) {
                        throw new NfsServerContract.AccessException("EACCES");
                    }
                    return files.get(path);
                }
            }
        };
    }
}
