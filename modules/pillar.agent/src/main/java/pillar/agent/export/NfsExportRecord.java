package pillar.agent.export;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import pillar.agent.nfs.NfsAccess;
import pillar.agent.nfs.NfsClient;
import pillar.agent.nfs.NfsFsid;
import pillar.agent.nfs.NfsServer;
import pillar.agent.nfs.NfsSquash;
import pillar.agent.nfs.NfsTransport;
import pillar.api.value.VolumeId;

/**
 * The durable record of one volume's NFS export, the sibling of {@link ExportRecord} in the same
 * {@link ExportStore} (one file per volume; {@code protocol=nfs} tells them apart, so NVMe-oF records
 * written before it read as they did): what start-up re-applies to nfsd and drift is measured against.
 * The fsid is not stored: it is {@link NfsFsid#of} the volume, the same on every re-apply.
 *
 * <p>A client's access is stored as the {@code readonly=} line, the read-only clients, written only when
 * there is one: a record without it (every record written before access existed) holds read-write
 * clients alone and reads as it did; an older agent refuses a record with it (a field it does not know:
 * the record is damaged, its export not applied), never exporting a read-only client read-write.
 *
 * <p>The {@code fencing=} line, written only when there is one, holds the removed clients whose NFSv4 state
 * is still to be released ({@link pillar.agent.nfs.NfsServer#releaseState}): noted before {@code exportfs -u},
 * dropped once released, so an agent that died between the two releases it at its next deny of the client or
 * at start-up. A record without it has none pending. A client is never both allowed and fencing.
 *
 * <p>The {@code squash=root_squash} line, written only for a squashed export, holds the export's {@link NfsSquash}:
 * a record without it (every record written before the option) is {@code no_root_squash} as it was; an older
 * agent refuses a record with it (damaged, not applied) rather than export it without squashing.
 *
 * <p>The {@code transport=tls} line, written only for an export that requires RPC-with-TLS, holds its
 * {@link NfsTransport}; a record without it admits any transport, and an older agent refuses a record with it
 * rather than export it in plaintext.
 *
 * @param volume  the exported volume
 * @param backend the zfs-dataset backend it lives on
 * @param path    the dataset's mount path, exported
 * @param server  the server's address the nodes mount from (an IP literal)
 * @param clients the client addresses allowed, one export entry each
 * @param readOnly those of the clients exported read-only; the others are read-write
 * @param fencing  removed clients whose NFSv4 state is still to be released; none of the clients
 * @param squash   what nfsd makes of root on every client of the export
 * @param transport what every client must mount over: {@link NfsTransport#ANY} or {@link NfsTransport#TLS}
 */
public record NfsExportRecord(VolumeId volume, String backend, Path path, NfsClient server, Set<NfsClient> clients,
                              Set<NfsClient> readOnly, Set<NfsClient> fencing, NfsSquash squash, NfsTransport transport)
        implements VolumeExport {
    static final String PROTOCOL_LINE = "protocol=nfs";
    /** The value of the {@code transport=} line: RPC-with-TLS only. */
    static final String TRANSPORT_TLS = "tls";

    public NfsExportRecord {
        NfsServer.requireExportable(path);
        clients = Set.copyOf(clients);
        if (!clients.containsAll(readOnly)) {
            throw new IllegalArgumentException("read-only clients " + readOnly + " are not all among the clients " + clients);
        }
        readOnly = Set.copyOf(readOnly);
        fencing = Set.copyOf(fencing);
        if (fencing.stream().anyMatch(clients::contains)) {
            throw new IllegalArgumentException("clients " + fencing + " are both allowed and fencing");
        }
        java.util.Objects.requireNonNull(squash, "squash");
        if (transport == null || transport == NfsTransport.OTHER) {
            throw new IllegalArgumentException("transport must be ANY or TLS, is " + transport);
        }
    }

    /** Admitting any transport. */
    public NfsExportRecord(VolumeId volume, String backend, Path path, NfsClient server, Set<NfsClient> clients,
                           Set<NfsClient> readOnly, Set<NfsClient> fencing, NfsSquash squash) {
        this(volume, backend, path, server, clients, readOnly, fencing, squash, NfsTransport.ANY);
    }

    /** Without root squashing. */
    public NfsExportRecord(VolumeId volume, String backend, Path path, NfsClient server, Set<NfsClient> clients,
                           Set<NfsClient> readOnly, Set<NfsClient> fencing) {
        this(volume, backend, path, server, clients, readOnly, fencing, NfsSquash.NO_ROOT_SQUASH);
    }

    /** None fencing. */
    public NfsExportRecord(VolumeId volume, String backend, Path path, NfsClient server, Set<NfsClient> clients,
                           Set<NfsClient> readOnly) {
        this(volume, backend, path, server, clients, readOnly, Set.of());
    }

    /** Every client read-write, none fencing. */
    public NfsExportRecord(VolumeId volume, String backend, Path path, NfsClient server, Set<NfsClient> clients) {
        this(volume, backend, path, server, clients, Set.of());
    }

    /** What {@code client} may do with the export (read-write unless recorded read-only). */
    public NfsAccess access(NfsClient client) {
        return NfsAccess.of(readOnly.contains(client));
    }

    @Override
    public String describe() {
        return "NFS " + path + " from " + server + (squash == NfsSquash.ROOT_SQUASH ? " with root_squash" : "")
                + (transport == NfsTransport.TLS ? " over RPC-with-TLS only" : "");
    }

    public NfsFsid fsid() {
        return NfsFsid.of(volume);
    }

    public NfsExportRecord withPath(Path newPath) {
        return new NfsExportRecord(volume, backend, newPath, server, clients, readOnly, fencing, squash, transport);
    }

    /** Exactly these clients, each kept one with its access, a new one read-write (and no longer fencing). */
    public NfsExportRecord withClients(Set<NfsClient> newClients) {
        return new NfsExportRecord(volume, backend, path, server, newClients,
                readOnly.stream().filter(newClients::contains).collect(Collectors.toSet()),
                fencing.stream().filter(c -> !newClients.contains(c)).collect(Collectors.toSet()), squash, transport);
    }

    /** {@code client} no longer allowed, its NFSv4 state noted as still to be released. */
    public NfsExportRecord withFencing(NfsClient client) {
        Set<NfsClient> newClients = new HashSet<>(clients);
        newClients.remove(client);
        Set<NfsClient> newFencing = new HashSet<>(fencing);
        newFencing.add(client);
        return new NfsExportRecord(volume, backend, path, server, newClients,
                readOnly.stream().filter(newClients::contains).collect(Collectors.toSet()), newFencing, squash, transport);
    }

    /** {@code client}'s NFSv4 state released: its note dropped. */
    public NfsExportRecord withoutFencing(NfsClient client) {
        Set<NfsClient> newFencing = new HashSet<>(fencing);
        newFencing.remove(client);
        return new NfsExportRecord(volume, backend, path, server, clients, readOnly, newFencing, squash, transport);
    }

    /** {@code client} allowed with {@code access} (added, or its access changed), the others as they are. */
    public NfsExportRecord withClient(NfsClient client, NfsAccess access) {
        Set<NfsClient> newClients = new HashSet<>(clients);
        newClients.add(client);
        Set<NfsClient> newReadOnly = new HashSet<>(readOnly);
        if (access == NfsAccess.READ_ONLY) {
            newReadOnly.add(client);
        } else {
            newReadOnly.remove(client);
        }
        Set<NfsClient> newFencing = new HashSet<>(fencing);
        newFencing.remove(client);
        return new NfsExportRecord(volume, backend, path, server, newClients, newReadOnly, newFencing, squash, transport);
    }

    String encode() {
        return "version=1\n" + PROTOCOL_LINE + "\n"
                + "volume=" + volume.value() + "\n"
                + "backend=" + backend + "\n"
                + "path=" + path + "\n"
                + "server=" + server.text() + "\n"
                + "clients=" + joined(clients) + "\n"
                + (readOnly.isEmpty() ? "" : "readonly=" + joined(readOnly) + "\n")
                + (fencing.isEmpty() ? "" : "fencing=" + joined(fencing) + "\n")
                + (squash == NfsSquash.NO_ROOT_SQUASH ? "" : "squash=" + squash.option() + "\n")
                + (transport == NfsTransport.ANY ? "" : "transport=" + TRANSPORT_TLS + "\n");
    }

    private static String joined(Set<NfsClient> addresses) {
        return addresses.stream().map(NfsClient::text).sorted(Comparator.naturalOrder()).collect(Collectors.joining(","));
    }

    private static Set<NfsClient> addresses(String field, String list) {
        return list == null || list.isEmpty() ? Set.of()
                : Arrays.stream(list.split(",")).map(c -> NfsClient.parse(field, c)).collect(Collectors.toSet());
    }

    /** Whether this record text is an NFS one (an NVMe-oF record has no protocol line). */
    static boolean isNfs(String text) {
        return text.lines().anyMatch(line -> line.strip().equals(PROTOCOL_LINE));
    }

    /** Parses {@link #encode()}; anything else throws {@link IllegalArgumentException}. */
    static NfsExportRecord parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int fields = 7 + (p.containsKey("readonly") ? 1 : 0) + (p.containsKey("fencing") ? 1 : 0) + (p.containsKey("squash") ? 1 : 0)
                + (p.containsKey("transport") ? 1 : 0);
        String transport = p.getProperty("transport");
        if (transport != null && !transport.equals(TRANSPORT_TLS)) {
            throw new IllegalArgumentException("nfs export record: transport must be " + TRANSPORT_TLS + ", is '"
                    + transport.replaceAll("[^\\x20-\\x7e]", "?") + "'");
        }
        if (!"1".equals(p.getProperty("version")) || !"nfs".equals(p.getProperty("protocol")) || p.size() != fields
                || p.getProperty("clients") == null) {
            throw new IllegalArgumentException("nfs export record: unknown version or missing fields");
        }
        return new NfsExportRecord(VolumeId.of(p.getProperty("volume")), p.getProperty("backend"), Path.of(p.getProperty("path")),
                NfsClient.parse("server", p.getProperty("server")), addresses("clients", p.getProperty("clients")),
                addresses("readonly", p.getProperty("readonly")), addresses("fencing", p.getProperty("fencing")),
                NfsSquash.ofOption(p.getProperty("squash", NfsSquash.NO_ROOT_SQUASH.option())),
                transport == null ? NfsTransport.ANY : NfsTransport.TLS);
    }
}
