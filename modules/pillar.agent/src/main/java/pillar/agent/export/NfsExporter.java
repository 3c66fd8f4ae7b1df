package pillar.agent.export;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import pillar.agent.backend.Texts;
import pillar.agent.backend.VolumeBackend;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsExport;
import pillar.agent.nfs.NfsServer;
import pillar.agent.nfs.StateRelease;

/**
 * NFS as a {@link ProtocolExporter}: applies {@link NfsExportRecord}s to the NFS server exactly and measures drift against its listing: one
 * entry per recorded client on the record's path with the volume's fsid and the client's recorded access
 * ({@code rw} or {@code ro}), the record's squash and transport, no other client's entry on that path. Every call is idempotent; a client is added before any is removed, so a retry converges. Its clients are addresses; a deny releases the client's NFSv4 state, which may stay
 * pending ({@link StateRelease#PENDING}). NFS has no in-band authentication.
 */
public final class NfsExporter implements ProtocolExporter<NfsExportRecord, NfsClient> {
    private static final Logger LOG = Logger.getLogger(NfsExporter.class.getName());

    private final NfsServer server;
    private final Set<String> filesystemBackends;

    /** On a host without filesystem backends: start-up prunes no unrecorded export. */
    public NfsExporter(NfsServer server) {
        this(server, Set.of());
    }

    /** @param filesystemBackends the zfs-dataset backends whose datasets' unrecorded exports start-up removes */
    public NfsExporter(NfsServer server, Set<String> filesystemBackends) {
        this.server = server;
        this.filesystemBackends = Set.copyOf(filesystemBackends);
    }

    @Override
    public Class<NfsExportRecord> records() {
        return NfsExportRecord.class;
    }

    @Override
    public String where() {
        return "nfsd";
    }

    /** None: nfsd exports directories only. */
    @Override
    public Optional<String> device(Path device) {
        return Optional.empty();
    }

    /** The first path the server's table exports, to any client, that is {@code directory} or below it. */
    @Override
    public Optional<String> directory(Path directory) {
        return server.exportedPaths().stream().filter(p -> p.startsWith(directory)).findFirst()
                .map(p -> "nfsd exports " + Texts.printable(p.toString()) + (p.equals(directory) ? "" : ", below it"));
    }

    /** The differences between the record and what the server lists now; empty when in place. */
    @Override
    public List<String> drift(NfsExportRecord record) {
        return drift(record, server.exports());
    }

    /** The differences between the record and {@code listing}, one line each (no secret: addresses and paths only). */
    static List<String> drift(NfsExportRecord record, List<NfsExport> listing) {
        List<String> drift = new ArrayList<>();
        String fsid = record.fsid().text();
        for (NfsClient client : record.clients().stream().sorted(java.util.Comparator.comparing(NfsClient::text)).toList()) {
            List<NfsExport> entries = listing.stream().filter(e -> e.path().equals(record.path()) && e.client().equals(client)).toList();
            if (entries.isEmpty()) {
                drift.add("client " + client + " is not exported " + record.path());
            } else if (entries.stream().noneMatch(e -> e.fsid().equals(fsid))) {
                drift.add("client " + client + " has " + record.path() + " with fsid " + entries.getFirst().fsid() + ", not " + fsid);
            } else if (entries.stream().noneMatch(e -> e.access() == record.access(client))) {
                drift.add("client " + client + " has " + record.path() + " " + entries.getFirst().access() + ", not "
                        + record.access(client));
            } else if (entries.stream().noneMatch(e -> e.squash() == record.squash())) {
                drift.add("client " + client + " has " + record.path() + " " + entries.getFirst().squash() + ", not " + record.squash());
            } else if (entries.stream().noneMatch(e -> e.transport() == record.transport())) {
                drift.add("client " + client + " has " + record.path() + " for " + entries.getFirst().transport() + ", not "
                        + record.transport());
            }
        }
        for (NfsExport entry : listing) {
            if (entry.path().equals(record.path()) && !record.clients().contains(entry.client())) {
                drift.add("client " + entry.client() + " is exported " + record.path() + " but not allowed");
            }
        }
        return drift;
    }

    /** Makes the server serve exactly the record: each client exported with its access, any other client of the path removed. */
    @Override
    public void apply(NfsExportRecord record) {
        apply(record, server.exports());
    }

    void apply(NfsExportRecord record, List<NfsExport> listing) {
        for (NfsClient client : record.clients()) {
            server.export(record.path(), client, record.fsid(), record.access(client), record.squash(), record.transport());
        }
        for (NfsExport entry : listing) {
            if (entry.path().equals(record.path()) && !record.clients().contains(entry.client())) {
                server.unexport(entry.path(), entry.client());
                LOG.info(() -> "removed client " + entry.client() + " from " + entry.path() + ": not in the record of " + record.volume());
            }
        }
    }

    /** {@link #removeAll} of the record's path. */
    @Override
    public void remove(NfsExportRecord record) {
        removeAll(record.path());
    }

    /** {@link #apply}: the record lists the client with its access (alone, when {@code exclusive}). */
    @Override
    public void allow(NfsExportRecord record, NfsClient client, boolean exclusive) {
        apply(record);
    }

    /** Removes the client's entry; its state is released, also when {@code before} noted it pending already. */
    @Override
    public StateRelease deny(NfsExportRecord before, NfsClient client) {
        return remove(before.path(), client, before.fencing().contains(client));
    }

    @Override
    public boolean exported(NfsExportRecord record) {
        return server.exports().stream().anyMatch(e -> e.path().equals(record.path()));
    }

    @Override
    public Set<NfsClient> admitted(NfsExportRecord record) {
        return server.exports().stream().filter(e -> e.path().equals(record.path())).map(NfsExport::client)
                .collect(Collectors.toSet());
    }

    /** {@link NfsExportReapply}: every NFS record applied, unrecorded exports of the filesystem backends' datasets removed. */
    @Override
    public List<String> reapply(ExportStore store, Map<String, VolumeBackend> backends) {
        return NfsExportReapply.run(store, this, backends, filesystemBackends);
    }

    /** NFS has no in-band authentication. */
    @Override
    public boolean authSupported() {
        return false;
    }

    /** Removes every client's entry for {@code path} (the volume is unexported). */
    public void removeAll(Path path) {
        for (NfsExport entry : server.exports()) {
            if (entry.path().equals(path)) {
                server.unexport(path, entry.client());
            }
        }
    }

    /**
     * Removes one client's entry (its access is cut once this returns: docs/nfs.md fact 2) and releases its NFSv4
     * state; {@code retry}: releases it also when the entry was gone already (a release noted as pending).
     * Returns how the release went.
     */
    public StateRelease remove(Path path, NfsClient client, boolean retry) {
        StateRelease released = server.unexport(path, client);
        return released == StateRelease.DONE && retry ? server.releaseState(path, client) : released;
    }

    /** Removes one client's entry and releases its state when it was listed ({@code remove(path, client, false)}). */
    public StateRelease remove(Path path, NfsClient client) {
        return remove(path, client, false);
    }

    /** Why the server cannot require RPC-with-TLS on an export; empty when it can ({@link NfsServer#tlsProblem}). */
    public Optional<String> tlsProblem() {
        return server.tlsProblem();
    }

    /** The server's listing now. */
    public List<NfsExport> exports() {
        return server.exports();
    }
}
